package engine

// The engine stays bounded under a peer that asks many questions: what a
// finished question held is gone. (Questions never finished are bounded
// by the codec's in-flight limit in the server, rpc/codec.go, not by the
// engine; this file does not test them.)

import (
	"runtime"
	"testing"
)

// tableSizer is the test-only hook of our engine (engines_sharevat_test.go):
// the number of entries in its four tables (rpc.capnp, "Four tables";
// imports are its live import hooks). An engine without it is checked by
// its goroutines and by still serving.
type tableSizer interface {
	tableSizes() (questions, answers, exports, imports int)
}

// TestHostileFinishedQuestionsBounded: after n Bootstrap+Finish and
// call+Finish cycles, the engine's tables hold only the one export and the
// one answer still live, and its goroutines did not grow with n.
func TestHostileFinishedQuestionsBounded(t *testing.T) {
	const n = 1000
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, Finish: "the callee may ... release the answer";
		// Finish.releaseResultCaps = true: "all capabilities that were in
		// the results should be considered released." Nothing of a
		// finished question need outlive it.
		p := start(t, e)
		bq, export := p.bootstrap()
		p.send(finishMsg(bq, false)) // keep one reference to the export
		runtime.GC()
		before := runtime.NumGoroutine()
		for i := range n {
			q := p.read(imported(export), uint64(i))
			if h, err := readHead(p.awaitReturn(q)); err != nil || h != uint64(i) {
				t.Fatalf("read %d: head %d, %v\n%s", i, h, err, p.history())
			}
			p.send(finishMsg(q, true))
			bq, _ := p.bootstrap()
			p.send(finishMsg(bq, true))
		}
		// Messages are handled in order: once this read is answered,
		// every Finish above has been handled. Its own answer is the one
		// left unfinished.
		p.stillServes(export)
		after := runtime.NumGoroutine()
		t.Logf("%s: goroutines %d before %d cycles, %d after", e.name, before, n, after)
		if grown := after - before; grown > n/10 {
			t.Errorf("%d goroutines more after %d finished cycles than before", grown, n)
		}
		ts, ok := p.conn.(tableSizer)
		if !ok {
			t.Logf("%s has no tableSizes hook; checked goroutines and service only", e.name)
			return
		}
		qs, as, es, is := ts.tableSizes()
		t.Logf("%s: questions %d, answers %d, exports %d, imports %d", e.name, qs, as, es, is)
		if qs != 0 || as > 1 || es != 1 || is != 0 {
			t.Fatalf("after %d finished cycles: questions %d, answers %d, exports %d, imports %d; want 0, <=1, 1, 0", n, qs, as, es, is)
		}
	})
}
