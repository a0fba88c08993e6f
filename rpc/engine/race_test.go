package engine_test

// The two races of issue 34: a Finish overtaking a Call pipelined on its
// question, and a question id reused before its Finish is on the wire.
// Each holds one write in a gated codec to make the bad schedule happen
// every time.

import (
	"context"
	"testing"

	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/rpc/engine"
)

// startRaw is our engine (offering nothing) over a gated codec, and the
// raw peer at the other end; cleanup closes both.
func startRaw(t *testing.T, hold func(rpccp.Message) bool) (*engine.Conn, *gatedCodec, *rawPeer) {
	t.Helper()
	a, b := newPipe()
	gc := newGatedCodec(a, hold)
	cli := engine.NewConn(gc, nil)
	t.Cleanup(func() {
		gc.open()
		_ = cli.Close()
		_ = b.Close()
		waitDone(t, cli.Done())
	})
	return cli, gc, newRawPeer(t, b)
}

// TestFinishWaitsForPipelinedCall: a Call pipelined on the Bootstrap is
// still being written when the Bootstrap's context ends. The Finish that
// cancels the Bootstrap must follow the Call (rpc.capnp, Finish: the
// question id may not be used once Finish is sent); before the fix the
// wire order was [bootstrap finish call].
func TestFinishWaitsForPipelinedCall(t *testing.T) {
	cli, gc, peer := startRaw(t, isPipelinedCall)
	ctx, cancel := context.WithCancel(testCtx(t))
	defer cancel()
	boot := cli.Bootstrap(ctx)
	defer boot.Release()
	bq := questionOf(peer.expect(rpccp.Message_Which_bootstrap))
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		_, release := sendAdd(testCtx(t), boot, 1)
		release()
	}()
	<-gc.entered // the pipelined Call is being written
	cancel()
	if err := boot.Resolve(testCtx(t)); err != nil { // the cancellation has settled the Bootstrap
		t.Fatal(err)
	}
	gc.open()
	<-sent
	m := peer.next()
	if m.Which() != rpccp.Message_Which_call {
		t.Fatalf("after the Bootstrap the engine sent %s, want the Call pipelined on it before its Finish", m.Which())
	}
	if f := peer.expect(rpccp.Message_Which_finish); questionOf(f) != bq {
		t.Fatalf("Finish for question %d, want %d (the canceled Bootstrap)", questionOf(f), bq)
	}
}

// TestQuestionIDNotReusedBeforeFinish: a canceled Bootstrap's Finish is
// slow to write, and the peer's Return for it arrives meanwhile. A new
// question must not take the id while that Finish is not on the wire:
// the late Finish would cancel the new question (before the fix, the new
// Bootstrap got id 0 and the old Finish(0) followed it).
func TestQuestionIDNotReusedBeforeFinish(t *testing.T) {
	cli, gc, peer := startRaw(t, isFinish)
	ctx, cancel := context.WithCancel(testCtx(t))
	boot := cli.Bootstrap(ctx)
	defer boot.Release()
	q0 := questionOf(peer.expect(rpccp.Message_Which_bootstrap))
	cancel()
	<-gc.entered // Finish(q0) is being written
	peer.sendCanceled(q0)
	// Messages are handled in order: once our Bootstrap is answered,
	// the Return for q0 has been.
	const theirs = 99
	peer.sendBootstrap(theirs)
	if r := peer.expect(rpccp.Message_Which_return); questionOf(r) != theirs {
		t.Fatalf("Return for %d, want %d", questionOf(r), theirs)
	}
	peer.sendFinish(theirs)
	boot2 := cli.Bootstrap(testCtx(t))
	defer boot2.Release()
	if q1 := questionOf(peer.expect(rpccp.Message_Which_bootstrap)); q1 == q0 {
		t.Fatalf("a new question took id %d while that id's Finish was still being written", q0)
	}
	gc.open()
	if f := peer.expect(rpccp.Message_Which_finish); questionOf(f) != q0 {
		t.Fatalf("Finish for question %d, want %d", questionOf(f), q0)
	}
}
