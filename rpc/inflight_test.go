package rpc_test

import (
	"context"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"
	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc"
)

// hold is the blocker's second method: it returns only when released, so
// calls stay in flight as long as a test needs.
var hold = capnp.Method{
	InterfaceID:   addOne.InterfaceID,
	MethodID:      1,
	InterfaceName: "rpc_test.Adder",
	MethodName:    "hold",
}

// blocker serves addOne and hold. Each hold call announces itself on
// entered, then returns when it takes a token from release or its call is
// cancelled (the connection went away).
type blocker struct {
	entered chan struct{}
	release chan struct{}
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}, 2*rpc.DefaultMaxInflightCalls), release: make(chan struct{})}
}

func (b *blocker) client() capnp.Client {
	return capnp.NewClient(server.New([]server.Method{
		{Method: addOne, Impl: addOneImpl},
		{Method: hold, Impl: b.hold},
	}, nil, nil))
}

func (b *blocker) hold(ctx context.Context, call *server.Call) error {
	call.Go() // let hold calls run side by side
	b.entered <- struct{}{}
	select {
	case <-b.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// waitEntered waits until n more hold calls have started.
func (b *blocker) waitEntered(tb testing.TB, n int) {
	tb.Helper()
	for i := range n {
		select {
		case <-b.entered:
		case <-time.After(safety):
			tb.Fatalf("only %d of %d hold calls started", i, n)
		}
	}
}

// callMessage is a serialized Call of hold, with question id q, on the
// answer to the Bootstrap question 0 (pipelined: the client need not read
// the bootstrap's Return first).
func callMessage(tb testing.TB, q uint32) []byte {
	tb.Helper()
	return rawCall(tb, q, 0, nil, hold, 0, 0)
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

// TestMaxInflightCalls: a raw client pipelines calls that the server
// cannot answer yet, reading nothing after the bootstrap's answer. At the cap its connection
// is still up; the call one over the cap closes it with 1008, and another
// client on the same server keeps working.
func TestMaxInflightCalls(t *testing.T) {
	checkGoroutines(t)
	const limit = 4
	b := newBlocker()
	srv := mustServe(t, rpc.HandlerOptions{
		MaxInflightCalls: limit,
		Bootstrap:        func(rpc.Peer) capnp.Client { return b.client() },
	})
	good := mustBootstrap(t, mustDial(t, srv.WSURL, nil))
	ws := dialRaw(t, srv.WSURL, nil)
	must(t, ws.WriteMessage(websocket.BinaryMessage, bootstrapMessage(t, 0)))
	_, _, err := ws.ReadMessage() // the bootstrap's Return: it too counts until then
	must(t, err)
	for q := range uint32(limit) {
		must(t, ws.WriteMessage(websocket.BinaryMessage, callMessage(t, q+1)))
	}
	b.waitEntered(t, limit) // all in flight, connection still open
	must(t, ws.WriteMessage(websocket.BinaryMessage, callMessage(t, limit+1)))
	ce := readClose(t, ws)
	if want := "sharevat: more than 4 calls in flight"; ce.Code != websocket.ClosePolicyViolation || ce.Text != want {
		t.Errorf("close = %d %q, want 1008 %q", ce.Code, ce.Text, want)
	}
	mustAdd(t, good, 1)
	waitFor(t, func() bool { return srv.Handler.Conns() == 1 }, "the server to drop the closed connection")
}

// TestInflightCallsWithinCap: a client that keeps exactly the cap in
// flight, round after round, is never closed: answered calls free their
// slots.
func TestInflightCallsWithinCap(t *testing.T) {
	checkGoroutines(t)
	const limit, rounds = 4, 3
	b := newBlocker()
	srv := mustServe(t, rpc.HandlerOptions{
		MaxInflightCalls: limit,
		Bootstrap:        func(rpc.Peer) capnp.Client { return b.client() },
	})
	conn := mustDial(t, srv.WSURL, nil)
	boot := mustBootstrap(t, conn)
	for round := range rounds {
		errs := make(chan error, limit)
		for range limit {
			go func() { errs <- callHold(boot) }()
		}
		b.waitEntered(t, limit)
		for range limit {
			b.release <- struct{}{}
		}
		for range limit {
			if err := <-errs; err != nil {
				t.Fatalf("round %d: hold: %v", round, err)
			}
		}
	}
	mustAdd(t, boot, 1)
	if err := conn.Err(); err != nil {
		t.Errorf("Err() = %v, want an open connection", err)
	}
}

func callHold(c capnp.Client) error {
	ans, release := c.SendCall(context.Background(), capnp.Send{Method: hold})
	defer release()
	_, err := ans.Struct()
	return err
}

// TestInflightCapSettings: zero means the default cap, negative means
// none.
func TestInflightCapSettings(t *testing.T) {
	checkGoroutines(t)
	const calls = rpc.DefaultMaxInflightCalls + 1
	tests := []struct {
		name   string
		limit  int
		closed bool
	}{
		{"zero: default cap", 0, true},
		{"negative: unlimited", -1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBlocker()
			srv := mustServe(t, rpc.HandlerOptions{
				MaxInflightCalls: tt.limit,
				Bootstrap:        func(rpc.Peer) capnp.Client { return b.client() },
			})
			ws := dialRaw(t, srv.WSURL, nil)
			must(t, ws.WriteMessage(websocket.BinaryMessage, bootstrapMessage(t, 0)))
			for q := range uint32(calls) {
				must(t, ws.WriteMessage(websocket.BinaryMessage, callMessage(t, q+1)))
			}
			if !tt.closed {
				b.waitEntered(t, calls)
				return
			}
			ce := readClose(t, ws)
			if want := "sharevat: more than 1024 calls in flight"; ce.Code != websocket.ClosePolicyViolation || ce.Text != want {
				t.Errorf("close = %d %q, want 1008 %q", ce.Code, ce.Text, want)
			}
		})
	}
}
