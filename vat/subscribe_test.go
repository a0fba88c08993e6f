package vat_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/vat"
)

// TestSubscribeBacklogThenLive: 50 ops exist before the subscribe and 50
// are appended after it from another connection. Invariants: the sink
// receives exactly cursors 1..100, in order, each once (the raw sink
// keeps repeats); a subscription from cursor 30 receives exactly 31..100;
// Subscription.cursor answers the last cursor pushed.
func TestSubscribeBacklogThenLive(t *testing.T) { onEachStore(t, testSubscribeBacklogThenLive) }

func testSubscribeBacklogThenLive(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "live")
	appendN(t, tv.MustRestore(t, owner), "before", 50, 7, `{}`)

	rd := mustRawReader(t, tv, owner)
	all, mid := newRecSink(nil), newRecSink(nil)
	subAll, err := rawSubscribe(rd, 0, all)
	require.NoError(t, err)
	defer subAll.Release()
	subMid, err := rawSubscribe(rd, 30, mid)
	require.NoError(t, err)
	defer subMid.Release()
	all.waitFor(t, 50)

	appendN(t, tv.MustRestore(t, owner), "after", 50, 3, `{}`)
	all.waitFor(t, 100)
	mid.waitFor(t, 100)
	assert.Equal(t, dense(0, 100), all.got(), "from 0: 1..100, in order, once each")
	assert.Equal(t, dense(30, 100), mid.got(), "from 30: 31..100 only")

	fut, release := subAll.Cursor(bg, nil)
	defer release()
	res, err := fut.Struct()
	require.NoError(t, err)
	assert.Equal(t, uint64(100), res.Cursor(), "Subscription.cursor is the last pushed")
}

// TestSubscribeConcurrentAppenders: 8 connections append 25 batches of 4
// ops each at once while 4 subscribers follow (two from the start, two
// joining midway). Invariant: every subscriber sees the dense sequence
// 1..800, in order, once each.
func TestSubscribeConcurrentAppenders(t *testing.T) { onEachStore(t, testSubscribeConcurrentAppenders) }

func testSubscribeConcurrentAppenders(t *testing.T, on storeKind) {
	const writers, batches, per = 8, 25, 4
	const total = sharevat.Cursor(writers * batches * per)
	tv := on.serve(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "many")
	rd := mustRawReader(t, tv, owner)
	sinks := []*recSink{newRecSink(nil), newRecSink(nil), newRecSink(nil), newRecSink(nil)}
	subscribe := func(s *recSink) {
		sub, err := rawSubscribe(rd, 0, s)
		require.NoError(t, err)
		t.Cleanup(sub.Release)
	}
	subscribe(sinks[0])
	subscribe(sinks[1])

	shares := make([]*client.Share, writers)
	for w := range shares {
		shares[w] = tv.MustRestore(t, owner)
	}
	var wg sync.WaitGroup
	for w, sh := range shares {
		wg.Go(func() { appendN(t, sh, fmt.Sprintf("w%d", w), batches*per, per, `{}`) })
	}
	sinks[0].waitFor(t, total/4)
	subscribe(sinks[2])
	subscribe(sinks[3])
	wg.Wait()
	for i, s := range sinks {
		s.waitFor(t, total)
		assert.Equal(t, dense(0, total), s.got(), "subscriber %d: 1..%d, dense, in order", i, total)
	}
}

// TestSubscribeSlowReaderFlowControl: one subscriber holds every push it
// gets (a raw sink that answers nothing until released). Invariants:
// meanwhile a second subscriber and the appender progress to the end;
// the server never has more than one flow window (plus the one push
// go-capnp sends before it waits) unanswered to the slow subscriber, so
// it holds back most of a backlog many windows long; once released, the
// slow subscriber still gets every op, in order, once.
func TestSubscribeSlowReaderFlowControl(t *testing.T) {
	const n, bodySize = 240, 8 << 10
	body := `{"pad":"` + strings.Repeat("x", bodySize-10) + `"}`
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "slow")
	appendN(t, tv.MustRestore(t, owner), "backlog", n/2, 20, body)

	gate := make(chan struct{})
	slow := newRecSink(gate)
	sub, err := rawSubscribe(mustRawReader(t, tv, owner), 0, slow)
	require.NoError(t, err)
	defer sub.Release()
	slow.waitFor(t, 1)

	fast := newRecSink(nil)
	fsub, err := rawSubscribe(mustRawReader(t, tv, owner), 0, fast)
	require.NoError(t, err)
	defer fsub.Release()
	appendN(t, tv.MustRestore(t, owner), "live", n/2, 20, body)
	fast.waitFor(t, n)

	slow.mu.Lock()
	most, mostBytes := slow.most, slow.mostBytes
	slow.mu.Unlock()
	bound := vat.PushWindow + 64<<10 // the window, plus the one push sent before waiting
	t.Logf("slow subscriber: at most %d pushes, %d body bytes in flight (bound %d); backlog %d bytes",
		most, mostBytes, bound, n*bodySize)
	assert.LessOrEqual(t, mostBytes, bound, "in-flight bytes stay within the flow window")
	assert.Less(t, len(slow.got()), n/2, "most of the backlog waits at the server")

	close(gate)
	slow.waitFor(t, n)
	assert.Equal(t, dense(0, n), slow.got(), "the slow subscriber gets everything, in order, once")
}

// TestSubscribeSlowHandler: the same through the client package: a
// handler blocked on a channel stalls only its own subscription.
// Invariants: another subscriber and the appender finish while it is
// blocked; unblocked, it delivers 1..n in order, once each.
func TestSubscribeSlowHandler(t *testing.T) {
	const n = 300
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "slow-handler")
	unblock, slow, fast := make(chan struct{}), newProgress(), newProgress()
	rd, err := tv.MustRestore(t, owner).Reader(bg)
	require.NoError(t, err)
	blocked, err := rd.Subscribe(bg, 0, func(es []sharevat.Entry) error {
		<-unblock
		slow.add(es)
		return nil
	})
	require.NoError(t, err)
	defer blocked.Close()
	running, err := rd.Subscribe(bg, 0, func(es []sharevat.Entry) error { fast.add(es); return nil })
	require.NoError(t, err)
	defer running.Close()

	appendN(t, tv.MustRestore(t, owner), "op", n, 10, `{"k":"v"}`)
	fast.waitFor(t, n)
	assert.Empty(t, slow.got(), "the blocked handler has delivered nothing yet")
	close(unblock)
	slow.waitFor(t, n)
	assert.Equal(t, dense(0, n), slow.got())
	assert.Equal(t, dense(0, n), fast.got())
	assert.Equal(t, sharevat.Cursor(n), blocked.Cursor())
}

// TestSubscribeReleaseStopsPushes: releasing the Subscription capability
// ends the subscription on the server. Invariants: the server releases
// the sink (its goroutine is done with it); ops appended afterwards reach
// another subscriber but never the released one; Vat.Close then finds
// nothing to wait for and returns at once, and later subscribes answer
// unavailable.
func TestSubscribeReleaseStopsPushes(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "release")
	sh := tv.MustRestore(t, owner)
	appendN(t, sh, "a", 10, 10, `{}`)
	rd := mustRawReader(t, tv, owner)
	gone, stays := newRecSink(nil), newRecSink(nil)
	sub, err := rawSubscribe(rd, 0, gone)
	require.NoError(t, err)
	other, err := rawSubscribe(rd, 0, stays)
	require.NoError(t, err)
	gone.waitFor(t, 10)

	sub.Release()
	gone.waitShut(t)
	appendN(t, sh, "b", 10, 10, `{}`)
	stays.waitFor(t, 20)
	assert.Equal(t, dense(0, 10), gone.got(), "nothing pushed after the release")

	other.Release()
	stays.waitShut(t)
	ctx, cancel := context.WithTimeout(bg, 2*time.Second)
	defer cancel()
	start := time.Now()
	require.NoError(t, tv.Vat.Close(ctx), "no subscription goroutine is left")
	t.Logf("Vat.Close took %v", time.Since(start))
	_, err = rawSubscribe(rd, 0, newRecSink(nil))
	isCode(t, err, sharevat.ErrUnavailable, "subscribe after Close")
}

// TestSubscribeVatCloseEndsAll: Vat.Close cancels live subscriptions and
// waits for their goroutines. Invariants: it returns well within its
// deadline even with a subscriber blocked in its handler; the clients
// see their subscriptions end as unavailable (retryable).
func TestSubscribeVatCloseEndsAll(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "close")
	sh := tv.MustRestore(t, owner)
	appendN(t, sh, "a", 5, 5, `{}`)
	rd, err := sh.Reader(bg)
	require.NoError(t, err)
	unblock := make(chan struct{})
	defer close(unblock)
	var subs []*client.Subscription
	for i := range 3 {
		s, err := rd.Subscribe(bg, 0, func([]sharevat.Entry) error {
			if i == 0 {
				<-unblock
			}
			return nil
		})
		require.NoError(t, err)
		subs = append(subs, s)
	}
	ctx, cancel := context.WithTimeout(bg, 5*time.Second)
	defer cancel()
	require.NoError(t, tv.Vat.Close(ctx))
	for _, s := range subs[1:] {
		waitDone(t, s, time.Now(), "after Vat.Close")
		isCode(t, s.Err(), sharevat.ErrUnavailable, "a subscription ended by Vat.Close")
	}
}

// TestSubscribeArguments: the call's own errors. Invariants: a cursor
// past the head is invalid; a sink-less subscribe is invalid; a
// connection may hold MaxConnSubscriptions subscriptions and the next
// one is tooLarge while another connection may still subscribe; a
// released subscription frees its slot.
func TestSubscribeArguments(t *testing.T) {
	tv := MustServeConfig(t, nil, func(c *vat.Config) { // one grant, one share: only the connection's quota applies
		c.Quotas.MaxGrantSubscriptions, c.Quotas.MaxShareSubscriptions = 2*vat.MaxConnSubscriptions, 2*vat.MaxConnSubscriptions
	})
	owner := tv.MustCreate(t, "args")
	appendN(t, tv.MustRestore(t, owner), "a", 3, 3, `{}`)
	rd := mustRawReader(t, tv, owner)
	_, err := rawSubscribe(rd, 4, newRecSink(nil))
	isCode(t, err, sharevat.ErrInvalid, "fromCursor past the head")
	fut, release := rd.Subscribe(bg, func(p schema.Reader_subscribe_Params) error { return nil })
	_, err = fut.Struct()
	release()
	isCode(t, wireErr(err), sharevat.ErrInvalid, "no sink")

	sinks := make([]*recSink, vat.MaxConnSubscriptions)
	subs := make([]schema.Subscription, vat.MaxConnSubscriptions)
	for i := range subs {
		sinks[i] = newRecSink(nil)
		subs[i], err = rawSubscribe(rd, 3, sinks[i])
		require.NoError(t, err, "subscription %d of %d", i+1, vat.MaxConnSubscriptions)
	}
	t.Cleanup(func() {
		for _, s := range subs {
			s.Release()
		}
	})
	_, err = rawSubscribe(rd, 3, newRecSink(nil))
	isCode(t, err, sharevat.ErrTooLarge, "one over the per-connection limit")
	other, err := rawSubscribe(mustRawReader(t, tv, owner), 3, newRecSink(nil))
	require.NoError(t, err, "another connection is not affected")
	other.Release()

	subs[0].Release()
	subs[0] = schema.Subscription{}
	sinks[0].waitShut(t)
	subs[0], err = rawSubscribe(rd, 3, newRecSink(nil))
	assert.NoError(t, err, "a released subscription frees its slot")
}
