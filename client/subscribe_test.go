package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/faultproxy"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/vat"
)

// subWait bounds every wait in the subscription tests; it only turns a
// hang into a failure.
const subWait = 20 * time.Second

// subVat is a whole server in-process (the MustServe pattern of
// vat/helpers_test.go) with one share, and a fault proxy in front of it.
type subVat struct {
	URL   string // direct
	Proxy string // through the proxy
	Store sharevat.Store
	Vat   *vat.Vat
	Owner string // the share's owner token
	Share *client.Share
	proxy *faultproxy.Proxy
}

func mustServeSubVat(t *testing.T) *subVat {
	t.Helper()
	srv := vattest.Start(t, vattest.Options{})
	p, err := faultproxy.New(srv.Addr)
	require.NoError(t, err)
	t.Cleanup(func() { p.Close() })
	tv := &subVat{URL: srv.URL, Proxy: "ws://" + p.Addr() + "/rpc", Store: srv.Store, Vat: srv.Vat, proxy: p}
	tv.Owner = srv.MustCreate(t, "tail")
	tv.Share = srv.MustRestore(t, tv.Owner)
	return tv
}

func (tv *subVat) dial(t *testing.T, url string) *client.Conn {
	t.Helper()
	c, err := client.Dial(context.Background(), url, nil)
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c
}

// reader redeems token on a new connection to url and returns its Reader.
func (tv *subVat) reader(t *testing.T, url, token string) *client.Reader {
	t.Helper()
	sh, err := tv.dial(t, url).Redeem(context.Background(), token)
	require.NoError(t, err)
	rd, err := sh.Reader(context.Background())
	require.NoError(t, err)
	return rd
}

// appendEvents appends n events with ids prefix-i, in batches of per.
func (tv *subVat) appendEvents(t *testing.T, prefix string, n, per int) {
	t.Helper()
	app, err := tv.Share.Appender(context.Background())
	require.NoError(t, err)
	defer app.Release()
	for i := 0; i < n; i += per {
		b := &sharevat.Batch{BatchID: fmt.Sprintf("%s-b%d", prefix, i), Epoch: tv.Share.Access.Epoch}
		for j := i; j < min(i+per, n); j++ {
			b.Ops = append(b.Ops, sharevat.Op{OpID: fmt.Sprintf("%s-%d", prefix, j), Kind: "event", Body: []byte(`{}`)})
		}
		ack, err := app.Append(context.Background(), b)
		require.NoError(t, err)
		require.Equal(t, len(b.Ops), ack.Applied)
	}
}

// seen records delivered cursors and checks, as they arrive, that each
// is the one after the last: no gap, no repeat, in order.
type seen struct {
	mu      sync.Mutex
	last    sharevat.Cursor
	n       int
	bad     []string
	changed chan struct{}
}

func newSeen(from sharevat.Cursor) *seen { return &seen{last: from, changed: make(chan struct{})} }

func (s *seen) add(e sharevat.Entry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e.Cursor != s.last+1 {
		s.bad = append(s.bad, fmt.Sprintf("cursor %d after %d", e.Cursor, s.last))
	}
	s.last, s.n = e.Cursor, s.n+1
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *seen) batch(es []sharevat.Entry) error {
	for _, e := range es {
		s.add(e)
	}
	return nil
}

func (s *seen) state() (sharevat.Cursor, int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.n, append([]string(nil), s.bad...)
}

// waitFor blocks until cursor c was delivered.
func (s *seen) waitFor(t *testing.T, c sharevat.Cursor) {
	t.Helper()
	deadline := time.After(subWait)
	for {
		s.mu.Lock()
		last, ch := s.last, s.changed
		s.mu.Unlock()
		if last >= c {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("cursor %d never delivered; last %d", c, last)
		}
	}
}

// assertExactly checks that exactly from+1..to were delivered, in order.
func (s *seen) assertExactly(t *testing.T, from, to sharevat.Cursor) {
	t.Helper()
	last, n, bad := s.state()
	assert.Empty(t, bad, "no gap, repeat or reordering")
	assert.Equal(t, to, last)
	assert.Equal(t, int(to-from), n, "each op exactly once")
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(subWait):
		t.Fatalf("%s: not done", what)
	}
}

// TestSubscribeClient: the client's Subscription. Invariants: the
// handler gets from+1..head then live ops, in order, once each; Cursor
// follows it; Close ends it with a nil Err and the handler is never
// called after Done.
func TestSubscribeClient(t *testing.T) {
	tv := mustServeSubVat(t)
	tv.appendEvents(t, "a", 40, 8)
	got := newSeen(10)
	sub, err := tv.reader(t, tv.URL, tv.Owner).Subscribe(context.Background(), 10, got.batch)
	require.NoError(t, err)
	tv.appendEvents(t, "b", 40, 8)
	got.waitFor(t, 80)
	got.assertExactly(t, 10, 80)
	assert.Equal(t, sharevat.Cursor(80), sub.Cursor())

	sub.Close()
	waitClosed(t, sub.Done(), "after Close")
	assert.NoError(t, sub.Err())
	tv.appendEvents(t, "c", 5, 5)
	barrier := newSeen(80)
	other, err := tv.reader(t, tv.URL, tv.Owner).Subscribe(context.Background(), 80, barrier.batch)
	require.NoError(t, err)
	defer other.Close()
	barrier.waitFor(t, 85)
	got.assertExactly(t, 10, 80)
}

// TestSubscribeHandlerError: a handler error ends the subscription.
// Invariants: Err is that error; Cursor stays at the last batch the
// handler accepted; the handler is not called again; Close from inside
// the handler ends a subscription with a nil Err once it returns.
func TestSubscribeHandlerError(t *testing.T) {
	tv := mustServeSubVat(t)
	tv.appendEvents(t, "a", 10, 1)
	boom := errors.New("boom")
	calls := 0
	var before sharevat.Cursor
	sub, err := tv.reader(t, tv.URL, tv.Owner).Subscribe(context.Background(), 0, func(es []sharevat.Entry) error {
		calls++
		if es[len(es)-1].Cursor >= 5 {
			return boom
		}
		before = es[len(es)-1].Cursor
		return nil
	})
	require.NoError(t, err)
	waitClosed(t, sub.Done(), "after the handler error")
	assert.ErrorIs(t, sub.Err(), boom)
	assert.Equal(t, before, sub.Cursor(), "the failed batch is not counted as delivered")
	n := calls
	tv.appendEvents(t, "b", 3, 3)
	barrier := newSeen(10)
	other, err := tv.reader(t, tv.URL, tv.Owner).Subscribe(context.Background(), 10, barrier.batch)
	require.NoError(t, err)
	defer other.Close()
	barrier.waitFor(t, 13)
	assert.Equal(t, n, calls, "no handler call after Done")

	var self *client.Subscription
	ready := make(chan struct{})
	self, err = tv.reader(t, tv.URL, tv.Owner).Subscribe(context.Background(), 0, func([]sharevat.Entry) error {
		<-ready
		self.Close()
		return nil
	})
	require.NoError(t, err)
	close(ready)
	waitClosed(t, self.Done(), "Close from the handler")
	assert.NoError(t, self.Err())
}

// TestSubscribeConnectionLost: cutting the connection ends the
// subscription. Invariant: Err is unavailable, which IsPermanent says is
// worth retrying.
func TestSubscribeConnectionLost(t *testing.T) {
	tv := mustServeSubVat(t)
	tv.appendEvents(t, "a", 3, 3)
	got := newSeen(0)
	sub, err := tv.reader(t, tv.Proxy, tv.Owner).Subscribe(context.Background(), 0, got.batch)
	require.NoError(t, err)
	got.waitFor(t, 3)
	tv.proxy.Cut()
	waitClosed(t, sub.Done(), "after the cut")
	assert.ErrorIs(t, sub.Err(), sharevat.ErrUnavailable)
	assert.False(t, client.IsPermanent(sub.Err()))
}

// TestSubscribeErrors: a subscribe the server refuses. Invariants: a
// cursor past the head is ErrInvalid; a nil handler is ErrInvalid; a
// revoked grant's Reader is ErrRevoked.
func TestSubscribeErrors(t *testing.T) {
	tv := mustServeSubVat(t)
	ctx := context.Background()
	tv.appendEvents(t, "a", 2, 2)
	rd := tv.reader(t, tv.URL, tv.Owner)
	_, err := rd.Subscribe(ctx, 3, func([]sharevat.Entry) error { return nil })
	assert.ErrorIs(t, err, sharevat.ErrInvalid, "past the head")
	_, err = rd.Subscribe(ctx, 0, nil)
	assert.ErrorIs(t, err, sharevat.ErrInvalid, "nil handler")

	m, err := tv.Share.Grant(ctx, sharevat.ScopeRead, 0, "B")
	require.NoError(t, err)
	brd := tv.reader(t, tv.URL, m.Token)
	require.NoError(t, tv.Share.Revoke(ctx, m.GrantID))
	_, err = brd.Subscribe(ctx, 0, func([]sharevat.Entry) error { return nil })
	assert.ErrorIs(t, err, sharevat.ErrRevoked, "revoked reader")
}
