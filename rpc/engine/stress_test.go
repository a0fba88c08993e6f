package engine_test

// Engine-to-engine stress: several goroutines on one connection between
// two of our engines mix calls pipelined on answers, callbacks (the
// callee calling the caller's capability: questions both ways), embargoed
// echoes and canceled calls. Every answer is checked, both wires keep the
// question-id rules, and the tables empty at the end.

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/rpc/engine"
)

func TestStressEngineToEngine(t *testing.T) {
	workers, ops := 6, 150
	if testing.Short() {
		ops = 30
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	a, b := newPipeN(1024)
	srvCheck, cliCheck := newWireChecker(a), newWireChecker(b)
	srv := engine.NewConn(srvCheck, &engine.Options{BootstrapClient: newMaker()})
	cli := engine.NewConn(cliCheck, nil)
	p := &soakPair{cli: cli, srv: srv}
	t.Cleanup(func() { _ = cli.Close(); waitDone(t, srv.Done()) })
	ctx := testCtx(t)
	maker := cli.Bootstrap(ctx)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for i := 0; i < ops && !t.Failed(); i++ {
				stressOp(t, ctx, rng, maker, uint64(i))
			}
		}()
	}
	wg.Wait()
	for side, c := range map[string]*wireChecker{"caller": cliCheck, "callee": srvCheck} {
		if v := c.problems(); len(v) > 0 {
			t.Errorf("seed %d: the %s broke the question-id rules on the wire:\n%v", seed, side, v)
		}
	}
	if cli.Err() != nil || srv.Err() != nil {
		t.Fatalf("seed %d: a connection ended: caller %v, callee %v", seed, cli.Err(), srv.Err())
	}
	maker.Release()
	waitTablesEmpty(t, p)
}

// stressOp runs one random operation and checks its answers.
func stressOp(t *testing.T, ctx context.Context, rng *rand.Rand, maker capnp.Client, x uint64) {
	switch rng.IntN(4) {
	case 0: // a call pipelined on make's answer
		ans, release := maker.SendCall(ctx, capnp.Send{Method: makeOne})
		defer release()
		if got, err := callAdd(ctx, ans.Field(0, nil).Client(), x); err != nil || got != x+1 {
			t.Errorf("pipelined addOne(%d) = %d, %v", x, got, err)
		}
	case 1: // the callee calls our adder back
		local := newAdder()
		defer local.Release()
		if got, err := callCallBack(ctx, maker, local, x); err != nil || got != x+1 {
			t.Errorf("callBack(%d) = %d, %v", x, got, err)
		}
	case 2: // our capability echoed back, called before and after the Return
		stressEcho(t, ctx, maker)
	default: // a call canceled at once, with a call pipelined on it
		cctx, cancel := context.WithCancel(ctx)
		ans, release := maker.SendCall(cctx, capnp.Send{Method: makeOne})
		piped, prelease := sendAdd(ctx, ans.Field(0, nil).Client(), x)
		cancel()
		if res, err := piped.Struct(); err == nil && res.Uint64(0) != x+1 {
			t.Errorf("addOne(%d) pipelined on a canceled call = %d", x, res.Uint64(0))
		}
		prelease()
		release()
	}
}

// stressEcho checks that calls on our echoed capability arrive in order.
func stressEcho(t *testing.T, ctx context.Context, maker capnp.Client) {
	rec := &recorder{}
	local := rec.client()
	defer local.Release()
	ans, release := maker.SendCall(ctx, capnp.Send{
		Method: echoCap, ArgsSize: capnp.ObjectSize{PointerCount: 1},
		PlaceArgs: func(s capnp.Struct) error { return s.SetPtr(0, local.AddRef().EncodeAsPtr(s.Segment())) },
	})
	defer release()
	echoed := ans.Field(0, nil).Client()
	defer echoed.Release()
	var waits []*capnp.Answer
	for i := range uint64(6) {
		if i == 3 {
			if _, err := ans.Struct(); err != nil {
				t.Errorf("echo: %v", err)
				return
			}
		}
		a, rel := sendAdd(ctx, echoed, i)
		defer rel()
		waits = append(waits, a)
	}
	for _, a := range waits {
		if _, err := a.Struct(); err != nil {
			t.Errorf("call on the echoed capability: %v", err)
			return
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, x := range rec.got {
		if x != uint64(i) {
			t.Errorf("calls reached our echoed capability in the order %v", rec.got)
			return
		}
	}
}
