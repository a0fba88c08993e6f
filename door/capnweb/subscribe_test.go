package capnweb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/vat"
)

// follower is one Cap'n Web session with a share restored, its appender
// and reader.
type follower struct {
	share, app, rd *capnweb.Stub
	epoch          capnweb.Value
}

func follow(t *testing.T, e *env, token string) *follower {
	t.Helper()
	res := must(t, e.dial(t), "restore", token)
	f := &follower{share: stubOf(t, get(t, res, "share")), epoch: get(t, get(t, res, "access"), "epoch")}
	f.app = stubOf(t, must(t, f.share, "appender"))
	f.rd = stubOf(t, must(t, f.share, "reader"))
	return f
}

// appendN appends n events with ids prefix-0… and bodies of size bytes.
func (f *follower) appendN(t *testing.T, prefix string, n, size int) {
	t.Helper()
	ops := make([]capnweb.Value, n)
	for i := range ops {
		ops[i] = op(fmt.Sprintf("%s-%d", prefix, i), "event", "", capnweb.NewObject().Set("pad", strings.Repeat("x", size)))
	}
	appendOps(t, f.app, f.epoch, ops...)
}

func seq(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// TestSubscribeSinks: an RpcTarget-style sink (push, end) and a
// function sink both receive the backlog, then live ops, in order, each
// once.
func TestSubscribeSinks(t *testing.T) {
	for _, function := range []bool{false, true} {
		t.Run(fmt.Sprintf("function=%v", function), func(t *testing.T) {
			e := start(t, vattest.Options{})
			f := follow(t, e, e.srv.MustCreate(t, "sub"))
			f.appendN(t, "backlog", 5, 10)
			s := newSink(function)
			sub := stubOf(t, must(t, f.rd, "subscribe", 2, s))
			assert.Equal(t, seq(3, 5), s.waitCursor(t, 5))
			f.appendN(t, "live", 3, 10)
			assert.Equal(t, seq(3, 8), s.waitCursor(t, 8))
			// The vat counts a push as sent when the sink's local OpSink
			// call returns, which for the bridge can be just after the
			// peer has the ops: poll, nothing else shows the moment.
			assert.Eventually(t, func() bool { return num(t, must(t, sub, "cursor")) == 8 },
				10*time.Second, 5*time.Millisecond, "Subscription.cursor reaches the last op pushed")
		})
	}
}

// TestRevokeOverRPCEndsSubscription: a revoke made over /rpc ends a Cap'n
// Web subscription with end("revoked", …), for both kinds of sink, and
// every later call on the grant's stubs rejects with revoked.
func TestRevokeOverRPCEndsSubscription(t *testing.T) {
	for _, function := range []bool{false, true} {
		t.Run(fmt.Sprintf("function=%v", function), func(t *testing.T) {
			e := start(t, vattest.Options{})
			owner := e.srv.MustRestore(t, e.srv.MustCreate(t, "rev"))
			m, err := owner.Grant(t.Context(), sharevat.ScopeRead|sharevat.ScopeAppend, time.Hour, "web")
			require.NoError(t, err)
			f := follow(t, e, m.Token)
			f.appendN(t, "a", 2, 10)
			s := newSink(function)
			sub := stubOf(t, must(t, f.rd, "subscribe", 0, s))
			s.waitCursor(t, 2)

			require.NoError(t, owner.Revoke(t.Context(), m.GrantID))
			assert.Equal(t, [2]string{"revoked", "capability revoked"}, s.waitEnd(t))
			for name, stub := range map[string]*capnweb.Stub{"share": f.share, "reader": f.rd, "appender": f.app, "subscription": sub} {
				method := map[string]string{"share": "info", "reader": "snapshot", "appender": "save", "subscription": "cursor"}[name]
				_, err := call(stub, method)
				code, msg := codeOf(t, err)
				assert.Equal(t, "revoked", code, name)
				assert.Equal(t, "revoked: capability revoked or expired", msg, name)
			}
		})
	}
}

// TestSubscriptionFlowControl: a sink that stops answering (after the
// first push, which tells the bridge what the sink is) stops the pushes
// once the vat's window is full: the pushes already sent reach it, the
// subscription's cursor stops short of the head. Once it answers, every
// op arrives, in order.
func TestSubscriptionFlowControl(t *testing.T) {
	const window = 64 << 10
	e := start(t, vattest.Options{Config: func(c *vat.Config) { c.Quotas.PushWindow = window }})
	f := follow(t, e, e.srv.MustCreate(t, "flow"))
	const n, size = 200, 4 << 10 // 800 KiB of ops
	for i := 0; i < n/50; i++ {
		f.appendN(t, fmt.Sprint("b", i), 50, size)
	}
	s := newSink(false)
	s.hold = make(chan struct{})
	sub := stubOf(t, must(t, f.rd, "subscribe", 0, s))
	s.waitFor(t, "a held push", func() bool { return s.pushes > 1 })

	pushed := stableCursor(t, sub)
	assert.Less(t, pushed, int64(n), "pushes went on past the window")
	// Unanswered: at most the window, plus the push go-capnp sends before
	// it waits for room (the vat's cursor does not count that one yet),
	// each push at most 64 KiB.
	s.mu.Lock()
	held := int64(len(s.cursors) - s.first)
	t.Logf("pushed %d of %d ops; %d pushes, %d ops unanswered", pushed, n, s.pushes-1, held)
	assert.LessOrEqual(t, held*size, int64(window+2*(64<<10)), "unanswered ops of %d bytes", size)
	assert.Greater(t, s.pushes, 2, "pushes after the first are sent before the one before is answered")
	s.mu.Unlock()

	close(s.hold)
	assert.Equal(t, seq(1, n), s.waitCursor(t, n))
}

// stableCursor polls Subscription.cursor until it stops moving (nothing
// else shows that the vat stopped pushing) and answers it.
func stableCursor(t *testing.T, sub *capnweb.Stub) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	last, same := int64(-1), 0
	for same < 5 {
		select {
		case <-ctx.Done():
			t.Fatal("the cursor never settled")
		case <-time.After(20 * time.Millisecond):
		}
		c := num(t, must(t, sub, "cursor"))
		if c == last {
			same++
		} else {
			last, same = c, 0
		}
	}
	return last
}

// TestSubscriptionEnds: releasing the Subscription stub ends the
// subscription and the vat lets go of the sink; a push that throws ends
// it too; a sink object without end is fine when the grant dies.
func TestSubscriptionEnds(t *testing.T) {
	e := start(t, vattest.Options{})
	token := e.srv.MustCreate(t, "ends")
	f := follow(t, e, token)
	f.appendN(t, "a", 2, 10)

	s := newSink(false)
	sub := must(t, f.rd, "subscribe", 0, s).(*capnweb.Stub)
	s.waitCursor(t, 2)
	sub.Release()
	s.waitReleased(t)

	throws := newSink(false)
	throws.fail = true
	stubOf(t, must(t, f.rd, "subscribe", 0, throws))
	throws.waitFor(t, "the push", func() bool { return throws.pushes > 0 })
	// The vat learns of the failure at a later push (a push already under
	// way when the answer came is not refused): append until it lets go.
	for i := 0; !throws.releasedWithin(100 * time.Millisecond); i++ {
		require.Less(t, i, 100, "the sink was never released")
		f.appendN(t, fmt.Sprint("b", i), 1, 10)
	}
	throws.mu.Lock()
	assert.Equal(t, 1, throws.pushes, "no push after one threw")
	throws.mu.Unlock()

	owner := e.srv.MustRestore(t, token)
	m, err := owner.Grant(t.Context(), sharevat.ScopeRead|sharevat.ScopeAppend, time.Hour, "")
	require.NoError(t, err)
	g := follow(t, e, m.Token)
	noEnd := newSink(false)
	noEnd.noEnd = true
	stubOf(t, must(t, g.rd, "subscribe", 0, noEnd))
	noEnd.waitCursor(t, 2)
	require.NoError(t, owner.Revoke(t.Context(), m.GrantID))
	noEnd.waitReleased(t)
}

// TestSessionEndReleases: when a Cap'n Web session ends, its Targets are
// released, and with them the vat's objects: a subscription of the
// closed session no longer counts against the share's quota, so another
// session may subscribe.
func TestSessionEndReleases(t *testing.T) {
	e := start(t, vattest.Options{Config: func(c *vat.Config) { c.Quotas.MaxShareSubscriptions = 1 }})
	token := e.srv.MustCreate(t, "quota")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := capnweb.Dial(ctx, e.url, nil, nil)
	require.NoError(t, err)
	sh := get(t, must(t, c.Main(), "restore", token), "share").(*capnweb.Stub)
	rd := must(t, sh, "reader").(*capnweb.Stub)
	must(t, rd, "subscribe", 0, newSink(false))

	f := follow(t, e, token)
	_, err = call(f.rd, "subscribe", 0, newSink(false))
	code, _ := codeOf(t, err)
	require.Equal(t, "tooLarge", code, "the share's one subscription is taken")

	require.NoError(t, c.Close())
	// Nothing tells this session when the other one's release reached
	// the vat: retry until the quota frees, within the deadline.
	for {
		v, err := call(f.rd, "subscribe", 0, newSink(false))
		if err == nil {
			stubOf(t, v)
			return
		}
		code, _ := codeOf(t, err)
		require.Equal(t, "tooLarge", code)
		select {
		case <-ctx.Done():
			t.Fatal("the closed session's subscription was never released")
		case <-time.After(10 * time.Millisecond):
		}
	}
}
