package engine_test

// noFinishNeeded (rpc.capnp, Return): a Return whose results hold no
// capability (or an exception) says so, the callee forgets the answer
// at once, and the caller sends no Finish for it.

import (
	"sync"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/rpc/transport"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// TestNoFinishNeededServer: the engine's Return for a call whose results
// hold no capability says noFinishNeeded and frees the id, so the peer
// may reuse it without a Finish (a duplicate id would abort); a Finish
// sent anyway is ignored. A Return that carries a capability (the
// bootstrap's) still needs its Finish.
func TestNoFinishNeededServer(t *testing.T) {
	peer := serveRaw(t, newAdder())
	boot := peer.bootstrap(0)
	for range 3 { // the same id, never finished
		peer.sendCall(1, rawTarget{id: boot}, addOne, nil)
		r := peer.expectReturn(1)
		if r.Which() != rpccp.Return_Which_results || !r.NoFinishNeeded() {
			t.Fatalf("addOne answered %s, noFinishNeeded %v; want results saying noFinishNeeded", r.Which(), r.NoFinishNeeded())
		}
	}
	peer.sendFinish(1) // not needed: ignored
	peer.sendBootstrap(2)
	if r := peer.expectReturn(2); r.NoFinishNeeded() {
		t.Fatal("the bootstrap's Return (a capability) said noFinishNeeded")
	}
	peer.sendCall(1, rawTarget{id: boot}, addOne, nil)
	peer.expectReturn(1)
}

// finishCounter counts the Finishes written through a codec.
type finishCounter struct {
	transport.Codec
	mu sync.Mutex
	n  int
}

func (f *finishCounter) Encode(msg *capnp.Message) error {
	if m, err := rpccp.ReadRootMessage(msg); err == nil && m.Which() == rpccp.Message_Which_finish {
		f.mu.Lock()
		f.n++
		f.mu.Unlock()
	}
	return f.Codec.Encode(msg)
}

func (f *finishCounter) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}

// TestNoFinishNeededClient: engine to engine, calls whose results hold
// no capability cost no Finish: the caller writes one Finish only, the
// bootstrap's.
func TestNoFinishNeededClient(t *testing.T) {
	a, b := newPipe()
	engineConn(t, a, newAdder())
	fc := &finishCounter{Codec: b}
	client := engineConn(t, newWireChecker(fc), capnp.Client{})
	ctx := testCtx(t)
	boot := client.Bootstrap(ctx)
	defer boot.Release()
	for i := range uint64(20) {
		if got, err := callAdd(ctx, boot, i); err != nil || got != i+1 {
			t.Fatalf("addOne(%d) = %d, %v", i, got, err)
		}
	}
	if n := fc.count(); n != 1 {
		t.Fatalf("%d Finishes written, want 1 (the bootstrap's)", n)
	}
}
