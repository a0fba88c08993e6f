package engine_test

// A soak of the races around a question: the caller's cancellation, calls
// pipelined on the question and the peer's Return, in thousands of random
// interleavings between two of our engines, with the caller's wire
// checked for the question-id rules (wirecheck_test.go). The count of
// iterations bounds it, not the clock.

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"

	"github.com/sharevat/sharevat/rpc/engine"
)

// newSlowMaker is a Maker whose make waits for a token on proceed (or its
// call's cancellation) before returning a new adder.
func newSlowMaker(proceed <-chan struct{}) capnp.Client {
	return capnp.NewClient(server.New([]server.Method{{Method: makeOne, Impl: func(ctx context.Context, call *server.Call) error {
		call.Go() // let the next make start: the calls overlap
		select {
		case <-proceed:
		case <-ctx.Done():
			return ctx.Err()
		}
		res, err := call.AllocResults(capnp.ObjectSize{PointerCount: 1})
		if err != nil {
			return err
		}
		return res.SetPtr(0, newAdder().EncodeAsPtr(res.Segment()))
	}}}, nil, nil))
}

// soakPair is two of our engines, the caller's wire checked.
type soakPair struct {
	cli, srv *engine.Conn
	check    *wireChecker
	proceed  chan struct{}
}

func startSoak(t *testing.T, tokens int) *soakPair {
	t.Helper()
	a, b := newPipe()
	p := &soakPair{proceed: make(chan struct{}, tokens)}
	p.srv = engine.NewConn(a, &engine.Options{BootstrapClient: newSlowMaker(p.proceed)})
	p.check = newWireChecker(b)
	p.cli = engine.NewConn(p.check, nil)
	t.Cleanup(func() {
		_ = p.cli.Close()
		waitDone(t, p.srv.Done())
	})
	return p
}

// TestSoakCancelPipelineReturn: each iteration makes a call, pipelines
// 0..4 calls on its answer (from this goroutine or others) and, in a
// random order, lets the call return and/or cancels it. A pipelined call
// either fails or answers the right value; a call whose context was not
// canceled must not fail; the wire keeps the question-id rules; and once
// everything is released both engines' tables empty.
func TestSoakCancelPipelineReturn(t *testing.T) {
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 34))
	p := startSoak(t, iterations)
	ctx := testCtx(t)
	maker := p.cli.Bootstrap(ctx)
	defer maker.Release()
	for i := range iterations {
		soakOnce(t, ctx, rng, p, maker, i)
		if t.Failed() {
			break
		}
	}
	if v := p.check.problems(); len(v) > 0 {
		t.Fatalf("seed %d: the caller broke the question-id rules on the wire:\n%v", seed, v)
	}
	if err := p.cli.Err(); err != nil || p.srv.Err() != nil {
		t.Fatalf("seed %d: a connection ended: caller %v, callee %v", seed, err, p.srv.Err())
	}
	maker.Release()
	waitTablesEmpty(t, p)
}

// soakOnce is one random interleaving.
func soakOnce(t *testing.T, base context.Context, rng *rand.Rand, p *soakPair, maker capnp.Client, i int) {
	ctx, cancel := context.WithCancel(base)
	defer cancel()
	ans, release := maker.SendCall(ctx, capnp.Send{Method: makeOne})
	defer release()
	adder := ans.Field(0, nil).Client()
	n := rng.IntN(5)
	results := make([]*capnp.Answer, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var releases []capnp.ReleaseFunc
	pipeline := func(j int) {
		a, rel := sendAdd(base, adder, uint64(j))
		mu.Lock()
		results[j], releases = a, append(releases, rel)
		mu.Unlock()
	}
	canceled := false
	for _, step := range rng.Perm(n + 2) {
		switch {
		case step == n: // the callee may return
			if rng.IntN(4) > 0 {
				p.proceed <- struct{}{}
			}
		case step == n+1: // the caller may cancel
			if rng.IntN(2) == 0 {
				canceled = true
				cancel()
			}
		case rng.IntN(2) == 0:
			wg.Add(1)
			go func() { defer wg.Done(); pipeline(step) }()
		default:
			pipeline(step)
		}
	}
	if !canceled {
		p.proceed <- struct{}{} // a call not canceled must be let return
	}
	wg.Wait()
	_, err := ans.Struct()
	if err != nil && !canceled {
		t.Errorf("iteration %d: make failed though not canceled: %v", i, err)
	}
	for j, a := range results {
		got, perr := a.Struct()
		if perr == nil && got.Uint64(0) != uint64(j)+1 {
			t.Errorf("iteration %d: pipelined addOne(%d) = %d", i, j, got.Uint64(0))
		}
		if perr != nil && err == nil && !canceled {
			t.Errorf("iteration %d: pipelined addOne(%d) failed on a call that returned: %v", i, j, perr)
		}
	}
	for _, rel := range releases {
		rel()
	}
	adder.Release()
}

// waitTablesEmpty waits until neither engine holds a question or an
// answer: the last Finishes may still be on their way. It polls the
// tables (no event says they emptied); the bound only turns a leak into
// a failure.
func waitTablesEmpty(t *testing.T, p *soakPair) {
	t.Helper()
	deadline := time.Now().Add(safety)
	for {
		cq, ca := p.cli.Tables()
		sq, sa := p.srv.Tables()
		if cq == 0 && ca == 0 && sq == 0 && sa == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tables not empty after everything was released: caller %d questions %d answers, callee %d questions %d answers", cq, ca, sq, sa)
		}
		time.Sleep(time.Millisecond) // polling the tables, not timing anything
	}
}
