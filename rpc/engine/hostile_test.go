package engine

// A hostile peer at the message level: ids it never was given, ids it
// reuses, indexes out of range, message kinds the engine does not know.
// The engine must refuse each (an exception Return, or an Abort when the
// spec calls it a protocol error), never panic, and, when it did not
// abort, go on serving.

import (
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/schema"
)

// TestHostileIds: messages naming ids the peer does not hold.
func TestHostileIds(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, QuestionId: a question id is the caller's until
		// "both: Return sent and Finish received" (Question lifetime);
		// "A question ID can be reused once both" hold. A Call reusing a
		// live id is a protocol error.
		t.Run("duplicate-question", func(t *testing.T) {
			deviation(t, e, "duplicate-question-aborts")
			p := start(t, e)
			p.boot.gate = make(chan struct{})
			defer close(p.boot.gate)
			_, export := p.bootstrap()
			q := p.question()
			sub := call{q: q, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe, params: subscribeParams(0, -1)}
			p.send(callMsg(sub))
			p.send(callMsg(sub))
			if o := p.refused(q, false); o.abort == "" {
				t.Fatalf("question %d asked twice: want an Abort, got %s\n%s", q, o, p.history())
			}
		})
		// rpc.capnp, ImportId: "An ImportId remains valid in importer ->
		// exporter messages until the importer has sent Release
		// messages"; an id never exported is not valid at all.
		t.Run("call-unknown-export", func(t *testing.T) {
			p := start(t, e)
			_, export := p.bootstrap()
			q := p.read(imported(export+1000), 1)
			o := p.refused(q, true)
			if o.results {
				t.Fatalf("a call on export %d, never exported, was served\n%s", export+1000, p.history())
			}
			t.Logf("%s: %s", e.name, o)
			if !o.closed {
				p.stillServes(export)
			}
		})
		// rpc.capnp, Exception.Type.unimplemented: "The requested method
		// is not implemented." A method or interface the capability does
		// not have fails that call only; the connection goes on.
		for _, c := range []struct {
			name   string
			iface  uint64
			method uint16
		}{
			{"unknown-method", schema.Reader_TypeID, 0x7fff},
			{"unknown-interface", 0xdeadbeeff00dcafe, 0},
		} {
			t.Run(c.name, func(t *testing.T) {
				p := start(t, e)
				_, export := p.bootstrap()
				q := p.question()
				p.send(callMsg(call{q: q, to: imported(export), iface: c.iface, method: c.method}))
				r := p.awaitReturn(q)
				if r.Which() != rpccp.Return_Which_exception {
					t.Fatalf("%s: want an exception Return, got %s\n%s", c.name, describeReturn(r), p.history())
				}
				if typ := must(r.Exception()).Type(); typ != rpccp.Exception_Type_unimplemented {
					t.Errorf("%s: exception type %s, want unimplemented", c.name, typ)
				}
				p.stillServes(export)
			})
		}
		// Finish of a question never asked and Release of an id never
		// exported: protocol errors; the engine may Abort or ignore them,
		// but must not panic and must not lose its real exports.
		for _, c := range []struct {
			name string
			msg  func(export uint32) builder
		}{
			{"finish-unknown", func(uint32) builder { return finishMsg(777, true) }},
			{"release-unknown", func(export uint32) builder { return releaseMsg(export+1000, 1) }},
			{"release-zero", func(export uint32) builder { return releaseMsg(export, 0) }},
		} {
			t.Run(c.name, func(t *testing.T) {
				p := start(t, e)
				bq, export := p.bootstrap()
				p.send(finishMsg(bq, false))
				if err := p.trySend(c.msg(export)); err != nil {
					t.Fatalf("send: %v", err)
				}
				p.servesOrAborted(export)
			})
		}
		// rpc.capnp, Return.answerId: "Equal to the QuestionId of the
		// corresponding Call message": a Return for a question the
		// engine never asked answers nothing.
		t.Run("return-unknown-question", func(t *testing.T) {
			p := start(t, e)
			_, export := p.bootstrap()
			p.send(returnMsg(4040, nil))
			p.servesOrAborted(export)
		})
		// rpc.capnp, Disembargo.senderLoopback: "The receiver must verify
		// that the target capability actually resolves back to the
		// sender's vat. Otherwise, the sender has committed a protocol
		// error and should be disconnected." The bootstrap capability is
		// the engine's own; an unknown import is nothing at all.
		for _, c := range []struct {
			name string
			to   func(bq, export uint32) target
		}{
			{"disembargo-local-export", func(_, export uint32) target { return imported(export) }},
			{"disembargo-unknown-export", func(_, export uint32) target { return imported(export + 1000) }},
			{"disembargo-unknown-question", func(bq, _ uint32) target { return promised(bq + 1000) }},
		} {
			t.Run(c.name, func(t *testing.T) {
				p := start(t, e)
				bq, export := p.bootstrap()
				p.send(disembargoMsg(c.to(bq, export), 1))
				if o := p.refused(0, false); o.abort == "" {
					t.Fatalf("want an Abort for a senderLoopback Disembargo to %v, got %s\n%s", c.to(bq, export), o, p.history())
				}
			})
		}
	})
}

// servesOrAborted checks that the engine either aborted, or still answers
// a read on export.
func (p *peer) servesOrAborted(export uint32) {
	p.t.Helper()
	q := p.read(imported(export), 4242)
	o := p.refused(q, true)
	p.t.Logf("%s: %s", p.e.name, o)
	if !o.closed && !o.results {
		p.t.Fatalf("the engine neither aborted nor served: %s\n%s", o, p.history())
	}
}

// TestHostileCapTable: a cap pointer in the params indexing past the cap
// table is refused (or read as a null capability), never a crash.
func TestHostileCapTable(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, Payload.capTable: "Descriptors corresponding to the
		// cap pointers in content"; an index with no descriptor names no
		// capability (encoding spec: an interface pointer's index is into
		// the message's cap table).
		for _, c := range []struct {
			name string
			caps []capDesc
			idx  int
		}{
			{"index-past-empty-table", nil, 3},
			{"index-past-table", []capDesc{{id: 30}}, 1},
			{"huge-index", nil, 1<<31 - 1},
			{"receiverHosted-unknown", []capDesc{{receiverHosted: true, id: 999}}, 0},
		} {
			t.Run(c.name, func(t *testing.T) {
				p := start(t, e)
				_, export := p.bootstrap()
				q := p.question()
				p.send(callMsg(call{q: q, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe,
					params: subscribeParams(0, c.idx), caps: c.caps}))
				o := p.refused(q, true)
				t.Logf("%s: %s", e.name, o)
				if o.results && len(p.boot.callback) > 0 {
					t.Fatalf("the engine delivered a capability for index %d of %d descriptors\n%s", c.idx, len(c.caps), p.history())
				}
				if !o.closed {
					p.stillServes(export)
				}
			})
		}
	})
}

// TestHostileUnknownMessage: a message whose union tag the engine does not
// know is echoed back as unimplemented, and the connection goes on.
func TestHostileUnknownMessage(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, Message.unimplemented: "The sender previously
		// received this message from the peer but didn't understand it
		// or doesn't yet implement the functionality that was requested.
		// So, the sender is echoing the message back."
		for _, tag := range []uint16{14, 99, 0xffff} {
			p := start(t, e)
			_, export := p.bootstrap()
			p.send(func(m rpccp.Message) error {
				capnp.Struct(m).SetUint16(0, tag)
				return nil
			})
			u := p.await("an unimplemented echo", func(m rpccp.Message) bool {
				return m.Which() == rpccp.Message_Which_unimplemented || m.Which() == rpccp.Message_Which_abort
			})
			if u.Which() != rpccp.Message_Which_unimplemented {
				t.Fatalf("tag %d: want unimplemented, got %s\n%s", tag, describe(u), p.history())
			}
			if got := uint16(must(u.Unimplemented()).Which()); got != tag {
				t.Fatalf("tag %d echoed as tag %d", tag, got)
			}
			p.stillServes(export)
		}
	})
}
