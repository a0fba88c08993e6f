package engine

// The conformance suite: the rules of /usr/include/capnp/rpc.capnp, each
// checked at the message level against every engine in engines (see
// wire_test.go). Each subtest quotes the rule it checks.

import (
	"testing"

	"github.com/sharevat/sharevat/schema"
)

// TestConformanceBootstrapAndCall: Bootstrap is answered with a
// senderHosted capability, a call on it and a call pipelined on the
// bootstrap question are answered with results, and Finish ends the
// question.
func TestConformanceBootstrapAndCall(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, Return.results: "For a Return in response to an
		// Accept or Bootstrap, results contains a single capability ...
		// content is just a capability pointer with index 0."
		t.Run("bootstrap-call-pipelined", func(t *testing.T) {
			p := start(t, e)
			bq, export := p.bootstrap()
			if h, err := readHead(p.awaitReturn(p.read(imported(export), 7))); err != nil || h != 7 {
				t.Fatalf("read on the export: head %d, %v\n%s", h, err, p.history())
			}
			// rpc.capnp, PromisedAnswer: calls may target a question's
			// answer (here, the bootstrap question, not yet finished).
			if h, err := readHead(p.awaitReturn(p.read(promised(bq), 8))); err != nil || h != 8 {
				t.Fatalf("read pipelined on the bootstrap question: head %d, %v\n%s", h, err, p.history())
			}
		})
		// rpc.capnp, QuestionId: "The ID remains valid in caller -> callee
		// messages until a Finish message is sent"; Finish (1): "The
		// questionId will no longer be used in any messages sent by the
		// callee (no further pipelined requests)." A call pipelined on a
		// finished question names no answer: it must be refused (an
		// exception or an Abort), never served.
		t.Run("pipelined-after-finish", func(t *testing.T) {
			p := start(t, e)
			bq, _ := p.bootstrap()
			p.send(finishMsg(bq, false))
			q := p.read(promised(bq), 9)
			if o := p.refused(q, true); o.results {
				t.Fatalf("a call on finished question %d was served\n%s", bq, p.history())
			} else {
				t.Logf("%s: %s", e.name, o)
			}
		})
	})
}

// TestConformanceReleaseDropsExport: the export a Bootstrap answered is
// reference counted; Finish with releaseResultCaps and Release both drop
// it, and a later call on the id is refused.
func TestConformanceReleaseDropsExport(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, Finish.releaseResultCaps: "If true, all
		// capabilities that were in the results should be considered
		// released."
		t.Run("finish-releaseResultCaps", func(t *testing.T) {
			p := start(t, e)
			bq, export := p.bootstrap()
			p.send(finishMsg(bq, true))
			q := p.read(imported(export), 1)
			if o := p.refused(q, true); o.results {
				t.Fatalf("export %d still served after Finish(releaseResultCaps)\n%s", export, p.history())
			}
		})
		// rpc.capnp, Release.referenceCount: "The export is only actually
		// released when the reference count reaches zero."
		t.Run("release", func(t *testing.T) {
			p := start(t, e)
			bq, export := p.bootstrap()
			p.send(finishMsg(bq, false))
			if h, err := readHead(p.awaitReturn(p.read(imported(export), 2))); err != nil || h != 2 {
				t.Fatalf("export not served before its Release: %d, %v\n%s", h, err, p.history())
			}
			p.send(releaseMsg(export, 1))
			q := p.read(imported(export), 3)
			if o := p.refused(q, true); o.results {
				t.Fatalf("export %d still served after its Release\n%s", export, p.history())
			}
		})
		// Two Bootstraps hold two references ("Whenever an ExportId is
		// sent over the wire ... the export's reference count is
		// incremented"): after one Release the export still serves.
		t.Run("refcount", func(t *testing.T) {
			p := start(t, e)
			q1, export := p.bootstrap()
			q2, export2 := p.bootstrap()
			if export2 != export {
				t.Skipf("%s exported the bootstrap twice (%d, %d); the spec only says it should reuse the id", e.name, export, export2)
			}
			p.send(finishMsg(q1, false))
			p.send(finishMsg(q2, false))
			p.send(releaseMsg(export, 1))
			if h, err := readHead(p.awaitReturn(p.read(imported(export), 4))); err != nil || h != 4 {
				t.Fatalf("export dropped with one of its two references left: %d, %v\n%s", h, err, p.history())
			}
		})
		// Releasing more references than were sent is a protocol error
		// of the peer: the engine must Abort (or at least stay up), never
		// panic (a panic in the engine's goroutine kills this test binary).
		t.Run("release-too-many", func(t *testing.T) {
			p := start(t, e)
			bq, export := p.bootstrap()
			p.send(finishMsg(bq, false))
			p.send(releaseMsg(export, 5))
			q := p.read(imported(export), 5)
			o := p.refused(q, true)
			if o.results {
				t.Fatalf("export %d served after releasing 5 of its 1 reference\n%s", export, p.history())
			}
			deviation(t, e, "release-too-many-aborts")
			if o.abort == "" {
				t.Fatalf("want an Abort for releasing 5 references of 1, got %s\n%s", o, p.history())
			}
		})
	})
}

// TestConformancePipelineOrder: calls pipelined on a question before its
// Return are delivered, after it resolves, in the order they were sent.
func TestConformancePipelineOrder(t *testing.T) {
	const n = 50
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, Disembargo: "if an application makes two calls foo()
		// and bar() on the same capability reference, in that order, the
		// calls should be delivered in the order in which they were made"
		// (E-order), promised answers included.
		p := start(t, e)
		p.boot.gate = make(chan struct{})
		_, export := p.bootstrap()
		sq := p.question()
		p.send(callMsg(call{q: sq, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe, params: subscribeParams(0, -1)}))
		qs := make([]uint32, n)
		for i := range qs {
			qs[i] = p.question()
			p.send(callMsg(call{q: qs[i], to: promised(sq, 0), iface: schema.Subscription_TypeID, method: subscriptionCurs}))
		}
		close(p.boot.gate)
		if _, err := resultCap(p.awaitReturn(sq), 0); err != nil {
			t.Fatalf("subscribe: %v\n%s", err, p.history())
		}
		for i, q := range qs {
			r := p.awaitReturn(q)
			got := schema.Subscription_cursor_Results(resultStruct(r)).Cursor()
			if r.Which().String() != "results" || got != uint64(i) {
				t.Fatalf("pipelined call %d of %d was delivered as number %d (%s)\n%s", i, n, got, describeReturn(r), p.history())
			}
		}
	})
}

// TestConformancePipelineTransform: a call pipelined through a transform
// that does not end at a capability is refused (an exception Return or an
// Abort), never a crash, and the engine goes on serving if it did not
// abort.
func TestConformancePipelineTransform(t *testing.T) {
	// rpc.capnp, PromisedAnswer.transform: "Operations / transformations
	// to apply to the result in order to get the capability actually
	// being addressed." A transform that reaches no capability addresses
	// nothing; Call on it must fail.
	cases := []struct {
		name   string
		from   uint64   // the read whose answer is the target
		fields []uint16 // the transform
		onBoot bool     // transform the bootstrap question instead
		rule   string   // the deviation this case checks, if any engine has one
	}{
		{name: "list-field", from: withOps, fields: []uint16{0}},
		{name: "null-field", from: 1, fields: []uint16{0}},
		{name: "through-null", from: 1, fields: []uint16{0, 0}},
		{name: "past-pointer-section", from: 1, fields: []uint16{7}},
		{name: "data-only-results", from: 1, fields: nil},
		{name: "into-a-capability", onBoot: true, fields: []uint16{0}, rule: "transform-into-capability"},
	}
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if c.rule == "" {
					c.rule = "bad-transform-crash"
				}
				deviation(t, e, c.rule)
				p := start(t, e)
				bq, export := p.bootstrap()
				tq := bq
				if !c.onBoot {
					tq = p.read(imported(export), c.from)
				}
				q := p.read(promised(tq, c.fields...), 2)
				o := p.refused(q, true)
				if o.results {
					t.Fatalf("a call through transform %v was served\n%s", c.fields, p.history())
				}
				t.Logf("%s: %s", e.name, o)
				if !o.closed {
					p.stillServes(export)
				}
			})
		}
	})
}

// TestConformancePipelineTransformQueued: the same refusals as
// TestConformancePipelineTransform when the call is surely queued before
// the answer exists (the method is held until the call was sent): the
// engine must not hand the bad transform to the answer's queue to crash
// on when the results arrive.
func TestConformancePipelineTransformQueued(t *testing.T) {
	cases := []struct {
		name   string
		fields []uint16
	}{
		{"null-field", []uint16{1}},
		{"through-a-capability", []uint16{0, 0}},
		{"results-struct", nil},
	}
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				deviation(t, e, "bad-transform-crash")
				p := start(t, e)
				p.boot.gate = make(chan struct{})
				_, export := p.bootstrap()
				sq := p.question()
				p.send(callMsg(call{q: sq, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe, params: subscribeParams(0, -1)}))
				q := p.question()
				p.send(callMsg(call{q: q, to: promised(sq, c.fields...), iface: schema.Subscription_TypeID, method: subscriptionCurs}))
				// A barrier: the engine has read the pipelined call once it
				// answers a later Bootstrap.
				p.bootstrap()
				close(p.boot.gate)
				o := p.refused(q, true)
				if o.results {
					t.Fatalf("a call through transform %v was served\n%s", c.fields, p.history())
				}
				t.Logf("%s: %s", e.name, o)
			})
		}
	})
}
