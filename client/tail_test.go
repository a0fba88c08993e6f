package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// quickRedeemer is a Redeemer with short backoff, for tests.
func quickRedeemer(t *testing.T, url, token string) *client.Redeemer {
	s := client.NewRedeemer(url, token, &client.RedeemerOptions{MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond})
	t.Cleanup(s.Close)
	return s
}

// tailAsync runs Tail in the background; the channel gets its return.
func tailAsync(ctx context.Context, s *client.Redeemer, from sharevat.Cursor, h func(sharevat.Entry) error) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- client.Tail(ctx, s, from, h) }()
	return errc
}

// tailReturn waits for what a tail run in the background returned.
func tailReturn[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(subWait):
		t.Fatal("Tail did not return")
		var zero T
		return zero
	}
}

// TestTailAcrossConnectionCuts: Tail follows the share through a proxy
// that cuts its connection five times: once mid-backlog, then four times
// right after live ops arrived (so each cut kills a connection that was
// carrying data), the last with ops appended while it is cut off.
// Invariants: the handler sees exactly 1..N, in order, once each; Tail
// reconnected after every cut and is still running until ctx ends.
func TestTailAcrossConnectionCuts(t *testing.T) {
	tv := mustServeSubVat(t)
	tv.appendEvents(t, "backlog", 600, 100)
	got := newSeen(0)
	ctx, cancel := context.WithCancel(context.Background())
	errc := tailAsync(ctx, quickRedeemer(t, tv.Proxy, tv.Owner), 0, func(e sharevat.Entry) error { got.add(e); return nil })

	got.waitFor(t, 100)
	tv.proxy.Cut() // mid-backlog, most likely
	got.waitFor(t, 600)
	for round := range 4 {
		tv.appendEvents(t, "live"+string(rune('a'+round)), 50, 10)
		got.waitFor(t, sharevat.Cursor(600+50*(round+1)))
		tv.proxy.Cut() // the connection that just delivered
	}
	tv.appendEvents(t, "cutoff", 50, 10)
	got.waitFor(t, 850)
	got.assertExactly(t, 0, 850)
	t.Logf("%d connections for 5 cuts", tv.proxy.Accepted())
	assert.GreaterOrEqual(t, tv.proxy.Accepted(), 6, "Tail reconnected after every cut")

	cancel()
	assert.ErrorIs(t, tailReturn(t, errc), context.Canceled)
	got.assertExactly(t, 0, 850)
}

// TestTailFromAndStop: Tail from a cursor delivers only later ops; it
// returns the handler's error as is, and ctx.Err() when ctx ends.
// Invariant: once Tail returned, the handler is never called again.
func TestTailFromAndStop(t *testing.T) {
	tv := mustServeSubVat(t)
	tv.appendEvents(t, "a", 20, 5)
	stop := errors.New("stop here")
	got := newSeen(15)
	err := client.Tail(context.Background(), quickRedeemer(t, tv.URL, tv.Owner), 15, func(e sharevat.Entry) error {
		got.add(e)
		if e.Cursor == 18 {
			return stop
		}
		return nil
	})
	assert.ErrorIs(t, err, stop, "the handler's error")
	got.assertExactly(t, 15, 18)

	ctx, cancel := context.WithCancel(context.Background())
	calls, after := 0, 0
	returned := make(chan struct{})
	errc := tailAsync(ctx, quickRedeemer(t, tv.URL, tv.Owner), 0, func(e sharevat.Entry) error {
		select {
		case <-returned:
			after++
		default:
		}
		if calls++; calls == 10 {
			cancel() // ends Tail while a batch is being delivered
		}
		return nil
	})
	assert.ErrorIs(t, tailReturn(t, errc), context.Canceled)
	close(returned)
	tv.appendEvents(t, "b", 5, 5)
	barrier := newSeen(20)
	other, err := tv.reader(t, tv.URL, tv.Owner).Subscribe(context.Background(), 20, barrier.batch)
	require.NoError(t, err)
	defer other.Close()
	barrier.waitFor(t, 25)
	assert.Zero(t, after, "no handler call after Tail returned")
}

// TestTailPermanentErrors: a token that does not redeem ends Tail at
// once with ErrUnauthorized; a grant revoked while Tail follows ends it
// with ErrRevoked. Invariant: in both cases Tail made exactly one redeem
// attempt.
func TestTailPermanentErrors(t *testing.T) {
	tv := mustServeSubVat(t)
	ctx := context.Background()
	m, err := tv.Share.Grant(ctx, sharevat.ScopeRead, 0, "B")
	require.NoError(t, err)
	require.NoError(t, tv.Share.Revoke(ctx, m.GrantID))
	err = client.Tail(ctx, quickRedeemer(t, tv.URL, m.Token), 0, func(sharevat.Entry) error { return nil })
	assert.ErrorIs(t, err, sharevat.ErrUnauthorized)
	assert.Equal(t, 1, redeemCount(t, tv, m.GrantID))

	tv.appendEvents(t, "a", 3, 3)
	c, err := tv.Share.Grant(ctx, sharevat.ScopeRead, 0, "C")
	require.NoError(t, err)
	got := newSeen(0)
	errc := tailAsync(ctx, quickRedeemer(t, tv.URL, c.Token), 0, func(e sharevat.Entry) error { got.add(e); return nil })
	got.waitFor(t, 3)
	require.NoError(t, tv.Share.Revoke(ctx, c.GrantID))
	assert.ErrorIs(t, tailReturn(t, errc), sharevat.ErrRevoked)
	assert.Equal(t, 1, redeemCount(t, tv, c.GrantID))
}

func redeemCount(t *testing.T, tv *subVat, id sharevat.GrantID) int {
	t.Helper()
	// every share's records: a failed redeem is audited without its share
	tv.Vat.SyncAudit()
	recs, err := tv.Store.AuditLog(context.Background(), "", 0, 10_000)
	require.NoError(t, err)
	n := 0
	for _, r := range recs {
		if r.Action == sharevat.AuditRedeem && r.GrantID == id {
			n++
		}
	}
	return n
}
