package vat_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3/exc"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// patience bounds every wait in the subscription tests. It only turns a
// hang into a failure: no test waits for it to pass.
const patience = 20 * time.Second

// progress records the cursors a subscriber received, in arrival order,
// duplicates included, and wakes waiters on every arrival.
type progress struct {
	mu      sync.Mutex
	cursors []sharevat.Cursor
	bodies  int // body bytes received
	changed chan struct{}
}

func newProgress() *progress { return &progress{changed: make(chan struct{})} }

func (p *progress) add(entries []sharevat.Entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range entries {
		p.cursors = append(p.cursors, e.Cursor)
		p.bodies += len(e.Body)
	}
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *progress) got() []sharevat.Cursor {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]sharevat.Cursor(nil), p.cursors...)
}

// waitFor blocks until cursor n (or a later one) arrived.
func (p *progress) waitFor(t *testing.T, n sharevat.Cursor) {
	t.Helper()
	deadline := time.After(patience)
	for {
		p.mu.Lock()
		ch, k := p.changed, len(p.cursors)
		reached := k > 0 && p.cursors[k-1] >= n
		p.mu.Unlock()
		if reached {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("cursor %d never arrived; got %d entries", n, k)
		}
	}
}

// dense returns the cursors from+1 .. to.
func dense(from, to sharevat.Cursor) []sharevat.Cursor {
	var out []sharevat.Cursor
	for c := from + 1; c <= to; c++ {
		out = append(out, c)
	}
	return out
}

// recSink is an OpSink written against the raw schema, so the tests see
// exactly what the server pushes (the client package would drop repeats).
// With a gate, every push is held (concurrently: call.Go) until the gate
// closes, so the number of pushes held is the number the server has in
// flight, unanswered.
type recSink struct {
	*progress
	gate chan struct{}

	mu          sync.Mutex
	held, most  int // pushes held now, and at most
	heldBytes   int // body bytes held now
	mostBytes   int // ... and at most
	ends        chan [2]string
	shut        chan struct{}
	shutOnce    sync.Once
	pushesTotal int
}

func newRecSink(gate chan struct{}) *recSink {
	return &recSink{progress: newProgress(), gate: gate, ends: make(chan [2]string, 1), shut: make(chan struct{})}
}

func (s *recSink) Push(ctx context.Context, call schema.OpSink_push) error {
	l, err := call.Args().Ops()
	if err != nil {
		return err
	}
	entries, err := wire.ReadEntries(l)
	if err != nil {
		return err
	}
	s.add(entries) // before call.Go: arrival order
	if s.gate == nil {
		return nil
	}
	call.Go()
	n := 0
	for _, e := range entries {
		n += len(e.Body)
	}
	s.hold(1, n)
	defer s.hold(-1, -n)
	select {
	case <-s.gate:
	case <-ctx.Done():
	}
	return nil
}

func (s *recSink) hold(d, n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.held, s.heldBytes = s.held+d, s.heldBytes+n
	s.most, s.mostBytes = max(s.most, s.held), max(s.mostBytes, s.heldBytes)
	if d > 0 {
		s.pushesTotal++
	}
}

func (s *recSink) End(_ context.Context, call schema.OpSink_end) error {
	code, _ := call.Args().Code()
	detail, _ := call.Args().Detail()
	s.ends <- [2]string{code, detail}
	return nil
}

// Shutdown runs when the server released the sink: its subscription
// goroutine is done with it.
func (s *recSink) Shutdown() { s.shutOnce.Do(func() { close(s.shut) }) }

// waitEnd waits for the subscription's end call. The server answers
// end before it releases the sink, so an end comes before shut; a shut
// with no end is a silent end, which fails t.
func (s *recSink) waitEnd(t *testing.T) [2]string {
	t.Helper()
	select {
	case end := <-s.ends:
		return end
	case <-s.shut:
		select {
		case end := <-s.ends:
			return end
		default:
			t.Fatal("the subscription ended without saying why")
		}
	case <-time.After(patience):
		t.Fatal("the subscription never ended")
	}
	return [2]string{}
}

func (s *recSink) waitShut(t *testing.T) {
	t.Helper()
	select {
	case <-s.shut:
	case <-time.After(patience):
		t.Fatal("the server never released the sink")
	}
}

// mustRawVault opens a raw connection (go-capnp, no client package) and
// returns its Vault; both are closed at cleanup.
func mustRawVault(t *testing.T, tv *testVat) schema.Vault {
	t.Helper()
	rc, err := rpc.Dial(bg, tv.URL, nil)
	require.NoError(t, err)
	t.Cleanup(func() { rc.Close() })
	boot, err := rc.BootstrapResolved(bg)
	require.NoError(t, err)
	vault := schema.Vault(boot)
	t.Cleanup(vault.Release)
	return vault
}

// mustRawReader redeems token on a new raw connection and returns its
// Reader; the connection closes at cleanup.
func mustRawReader(t *testing.T, tv *testVat, token string) schema.Reader {
	t.Helper()
	vault := mustRawVault(t, tv)
	fut, release := vault.Restore(bg, func(p schema.Vault_restore_Params) error { return p.SetToken(token) })
	defer release()
	rfut, rrelease := fut.Share().Reader(bg, nil)
	defer rrelease()
	_, err := rfut.Struct()
	require.NoError(t, err)
	rd := rfut.Reader().AddRef()
	t.Cleanup(rd.Release)
	return rd
}

// rawSubscribe subscribes sink through rd; the caller owns the result.
func rawSubscribe(rd schema.Reader, from sharevat.Cursor, sink *recSink) (schema.Subscription, error) {
	fut, release := rd.Subscribe(bg, func(p schema.Reader_subscribe_Params) error {
		p.SetFromCursor(uint64(from))
		return p.SetSink(schema.OpSink_ServerToClient(sink))
	})
	defer release()
	if _, err := fut.Struct(); err != nil {
		return schema.Subscription{}, wireErr(err)
	}
	return fut.Subscription().AddRef(), nil
}

// wireErr turns a raw call's exception back into the domain error it
// carries (as the client package does), so tests can assert on codes.
func wireErr(err error) error {
	var last *exc.Exception
	for e := err; ; {
		var x *exc.Exception
		if !errors.As(e, &x) {
			break
		}
		last, e = x, x.Cause
	}
	if last == nil {
		return err
	}
	msg := last.Cause
	for next := errors.Unwrap(msg); next != nil; next = errors.Unwrap(msg) {
		msg = next
	}
	if de := sharevat.ParseError(msg.Error()); de != nil {
		return de
	}
	return err
}

// appendN appends n event ops to the share behind sh, in batches of per,
// with op ids prefix-0, prefix-1, ...
func appendN(t *testing.T, sh *client.Share, prefix string, n, per int, body string) {
	t.Helper()
	app, err := sh.Appender(bg)
	require.NoError(t, err)
	defer app.Release()
	for i := 0; i < n; i += per {
		b := &sharevat.Batch{BatchID: fmt.Sprintf("%s-b%d", prefix, i), Epoch: sh.Access.Epoch}
		for j := i; j < min(i+per, n); j++ {
			b.Ops = append(b.Ops, op(fmt.Sprintf("%s-%d", prefix, j), "event", "", body))
		}
		ack, err := app.Append(bg, b)
		require.NoError(t, err)
		require.Equal(t, len(b.Ops), ack.Applied, "every op of %s applied", b.BatchID)
	}
}

// waitDone waits for a client subscription to end and returns how long
// that took from start.
func waitDone(t *testing.T, sub *client.Subscription, start time.Time, what string) time.Duration {
	t.Helper()
	select {
	case <-sub.Done():
		return time.Since(start)
	case <-time.After(patience):
		t.Fatalf("%s: the subscription did not end", what)
		return 0
	}
}
