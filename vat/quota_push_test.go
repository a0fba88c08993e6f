package vat_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/vat"
)

// TestConnPushWindow: a subscriber that never answers its pushes, on many
// subscriptions of one connection, makes the vat hold at most the
// connection's push window, not a window per subscription; released, every
// subscription still gets every op once, in order.
func TestConnPushWindow(t *testing.T) {
	const subs, n, bodySize = 8, 16, 100 << 10
	const connWindow = 1 << 20
	body := `{"pad":"` + strings.Repeat("x", bodySize-10) + `"}`
	tv := MustServeConfig(t, nil, func(c *vat.Config) {
		c.Quotas.ConnPushWindow = connWindow
		c.Limits = sharevat.DefaultLimits()
		c.Limits.MaxBodyBytes = 2 * bodySize // a push is sized for the largest op before it is read
	})
	owner := tv.MustCreate(t, "window")
	appendN(t, tv.MustRestore(t, owner), "backlog", n, 4, body)

	gate := make(chan struct{})
	sink := newRecSink(gate) // one sink for all: it sums what the connection holds
	rd := mustRawReader(t, tv, owner)
	var all []schema.Subscription
	for range subs {
		s, err := rawSubscribe(rd, 0, sink)
		require.NoError(t, err)
		all = append(all, s)
	}
	t.Cleanup(func() {
		for _, s := range all {
			s.Release()
		}
	})
	sink.waitFor(t, 1)
	// Another connection's subscriber is served meanwhile.
	other := newRecSink(nil)
	osub, err := rawSubscribe(mustRawReader(t, tv, owner), 0, other)
	require.NoError(t, err)
	defer osub.Release()
	other.waitFor(t, n)

	sink.mu.Lock()
	most := sink.mostBytes
	sink.mu.Unlock()
	t.Logf("held unanswered at most %d body bytes over %d subscriptions (window %d; %d per subscription would be %d)",
		most, subs, connWindow, vat.PushWindow, subs*vat.PushWindow)
	assert.LessOrEqual(t, most, connWindow, "pushes in flight stay within the connection's window")
	assert.Positive(t, most)

	close(gate)
	sink.waitPushes(t, subs*n)
}

// waitPushes waits until the sink has received n entries in all.
func (s *recSink) waitPushes(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(patience)
	for {
		s.progress.mu.Lock()
		ch, k := s.progress.changed, len(s.progress.cursors)
		s.progress.mu.Unlock()
		if k >= n {
			assert.Equal(t, n, k, "every subscription got every op once")
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("only %d of %d entries arrived", k, n)
		}
	}
}
