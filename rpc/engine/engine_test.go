package engine_test

import (
	"context"
	"testing"

	capnp "capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/rpc/engine"
)

// pipelineAdd calls make on maker and, without waiting, addOne(x) on the
// capability the answer will hold (promise pipelining).
func pipelineAdd(ctx context.Context, maker capnp.Client, x uint64) (uint64, error) {
	ans, release := maker.SendCall(ctx, capnp.Send{Method: makeOne})
	defer release()
	return callAdd(ctx, ans.Field(0, nil).Client(), x)
}

// exercise runs the calls every test pair must answer: a direct call, a
// pipelined one, and a call that makes the server call back into the
// client's own capability.
func exercise(t *testing.T, ctx context.Context, maker capnp.Client) {
	t.Helper()
	for i := uint64(0); i < 20; i++ {
		if got, err := pipelineAdd(ctx, maker, i); err != nil || got != i+1 {
			t.Fatalf("pipelined addOne(%d) = %d, %v; want %d", i, got, err, i+1)
		}
	}
	adder := newAdder()
	defer adder.Release()
	for i := uint64(0); i < 20; i++ {
		if got, err := callCallBack(ctx, maker, adder, i); err != nil || got != i+1 {
			t.Fatalf("callBack(addOne, %d) = %d, %v; want %d", i, got, err, i+1)
		}
	}
}

func TestEngineServesGoCapnp(t *testing.T) {
	ctx := testCtx(t)
	p := mustPair(t, newMaker(), capnp.Client{})
	maker := p.theirs.Bootstrap(ctx)
	defer maker.Release()
	exercise(t, ctx, maker)
}

func TestEngineCallsGoCapnp(t *testing.T) {
	ctx := testCtx(t)
	p := mustPair(t, capnp.Client{}, newMaker())
	maker := p.ours.Bootstrap(ctx)
	defer maker.Release()
	exercise(t, ctx, maker)
}

func TestEngineToEngine(t *testing.T) {
	ctx := testCtx(t)
	a, b := newPipe()
	server := engine.NewConn(a, &engine.Options{BootstrapClient: newMaker()})
	client := engine.NewConn(b, nil)
	defer func() {
		_ = client.Close()
		waitDone(t, server.Done())
		if err := server.Err(); err == nil {
			t.Error("server.Err() = nil after the client's Abort; want the peer's reason")
		}
	}()
	maker := client.Bootstrap(ctx)
	defer maker.Release()
	exercise(t, ctx, maker)
}

func TestBootstrapWithoutCapabilityFails(t *testing.T) {
	ctx := testCtx(t)
	p := mustPair(t, capnp.Client{}, capnp.Client{})
	boot := p.theirs.Bootstrap(ctx)
	defer boot.Release()
	if _, err := callAdd(ctx, boot, 1); err == nil {
		t.Fatal("call on a missing bootstrap capability succeeded")
	}
}
