package engine

// How a connection ends (Abort from the peer, Close from our side) and
// the engine's own questions: calls it makes on capabilities the peer
// exported to it (imports), their Finish and their Release.

import (
	"strings"
	"testing"
	"time"

	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/schema"
)

// TestConformanceAbortAndClose: an Abort from the peer ends the
// connection; Close from our side tells the peer (Abort, or the codec
// closed) and releases the bootstrap capability.
func TestConformanceAbortAndClose(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, Message.abort: "Sent when a connection is being
		// aborted due to an unrecoverable error ... The sender will shut
		// down the outgoing half of the connection after abort and will
		// completely close the connection shortly thereafter."
		t.Run("abort-from-peer", func(t *testing.T) {
			p := start(t, e)
			p.bootstrap()
			const reason = "the peer gives up: test abort"
			p.send(abortMsg(reason))
			p.awaitDone()
			if ec, ok := p.conn.(errConn); ok {
				if err := ec.Err(); err == nil || !strings.Contains(err.Error(), reason) {
					t.Fatalf("Err() after the peer's Abort = %v, want it to carry %q", err, reason)
				}
			} else {
				t.Logf("%s has no Err(); Done closed", e.name)
			}
			p.awaitEnd()
			select {
			case <-p.boot.shutdown:
			case <-time.After(hangGuard):
				t.Fatalf("bootstrap capability not released after the peer's Abort")
			}
		})
		// rpc.capnp, "When a Cap'n Proto connection is lost, everything
		// on the four tables is lost ... All exports and answers are
		// implicitly released." Close must tell the peer and let go of
		// the bootstrap capability (Options: NewConn owns it).
		t.Run("close", func(t *testing.T) {
			p := start(t, e)
			p.bootstrap()
			if err := p.conn.Close(); err != nil {
				t.Logf("Close: %v", err)
			}
			abort, sent := p.awaitEnd()
			t.Logf("%s: Abort sent %v (%q), codec closed", e.name, sent, abort)
			p.awaitDone()
			select {
			case <-p.boot.shutdown:
			case <-time.After(hangGuard):
				t.Fatalf("bootstrap capability not released by Close")
			}
		})
		// Close while the engine waits for the peer's answer to its own
		// call (the bootstrap's subscribe calling our sink back): the
		// question is "canceled and throw[s] exceptions" (connection
		// lost), Close returns and the server sees the failure.
		t.Run("close-while-calling-peer", func(t *testing.T) {
			deviation(t, e, "close-with-outstanding-calls")
			p := start(t, e)
			_, export := p.bootstrap()
			p.send(callMsg(call{q: p.question(), to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe,
				params: subscribeParams(0, 0), caps: []capDesc{{id: 10}}}))
			p.await("the engine's Call on our sink", func(m rpccp.Message) bool {
				return m.Which() == rpccp.Message_Which_call
			})
			if !closesWithin(p.conn, hangGuard) {
				t.Fatalf("Close did not return while the engine's call on the peer was outstanding")
			}
			select {
			case err := <-p.boot.callback:
				if err == nil {
					t.Fatalf("the callback succeeded though the peer never answered")
				}
			case <-time.After(hangGuard):
				t.Fatalf("the server's callback never failed after Close")
			}
		})
		// The peer just going away (its end of the codec closed) also
		// ends the connection.
		t.Run("peer-hangs-up", func(t *testing.T) {
			p := start(t, e)
			p.bootstrap()
			p.hangup()
			p.awaitDone()
		})
	})
}

// TestConformanceImports: the bootstrap's subscribe calls back the sink
// the peer passed in its params; the engine's Call goes to the peer's
// export, its Finish follows the Return at once, and the import is
// released when dropped.
func TestConformanceImports(t *testing.T) {
	const sinkExport = 10
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// callback runs subscribe(sink = our export 10), answers the
		// engine's call on it, and returns the engine's question id for
		// it and the Return of subscribe.
		callback := func(t *testing.T) (p *peer, eq uint32, r rpccp.Return) {
			p = start(t, e)
			_, export := p.bootstrap()
			q := p.question()
			p.send(callMsg(call{q: q, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe,
				params: subscribeParams(0, 0), caps: []capDesc{{id: sinkExport}}}))
			// rpc.capnp, CapDescriptor.senderHosted: "A capability newly
			// exported by the sender"; the receiver calls it with
			// target importedCap = that id.
			m := p.await("the engine's Call on our sink", func(m rpccp.Message) bool {
				return m.Which() == rpccp.Message_Which_call
			})
			c := must(m.Call())
			tg := must(c.Target())
			if tg.Which() != rpccp.MessageTarget_Which_importedCap || tg.ImportedCap() != sinkExport ||
				c.InterfaceId() != schema.OpSink_TypeID || c.MethodId() != opSinkEnd {
				t.Fatalf("engine's call: %s to %s %d, want OpSink.end on importedCap %d\n%s",
					describe(m), tg.Which(), tg.ImportedCap(), sinkExport, p.history())
			}
			eq = c.QuestionId()
			p.send(returnMsg(eq, nil))
			if err := <-p.boot.callback; err != nil {
				t.Fatalf("the callback's answer reached the server as %v", err)
			}
			return p, eq, p.awaitReturn(q)
		}
		t.Run("callback-answered", func(t *testing.T) {
			p, _, r := callback(t)
			if _, err := resultCap(r, 0); err != nil {
				t.Fatalf("subscribe: %v\n%s", err, p.history())
			}
		})
		// rpc.capnp, Finish: sent by the caller when it "no longer cares
		// about the result". The server used the callback's answer and
		// released it before returning; an engine that sends Finish when
		// the Return arrives or when the answer is released (not on a
		// timer) has sent it before it answers a Bootstrap we send once
		// the Return of subscribe is in.
		t.Run("finish-before-next-answer", func(t *testing.T) {
			deviation(t, e, "prompt-finish")
			p, eq, _ := callback(t)
			probe := p.question()
			p.send(bootstrapMsg(probe))
			p.awaitReturn(probe)
			for _, m := range p.seen {
				switch {
				case m.Which() == rpccp.Message_Which_finish && must(m.Finish()).QuestionId() == eq:
					return
				case m.Which() == rpccp.Message_Which_return && must(m.Return()).AnswerId() == probe:
					t.Fatalf("no Finish for the engine's question %d before the answer to a later Bootstrap\n%s", eq, p.history())
				}
			}
		})
		// rpc.capnp, Return.releaseParamCaps: "If true, all capabilities
		// that were in the params should be considered released. The
		// sender must not send separate Release messages for them."
		// Otherwise the engine must Release the import once the server
		// dropped it (it did, by returning).
		t.Run("release-import", func(t *testing.T) {
			p, _, r := callback(t)
			if r.ReleaseParamCaps() {
				t.Logf("%s: released the sink with the Return (releaseParamCaps)", e.name)
				return
			}
			m := p.awaitSeen("Release of our sink", func(m rpccp.Message) bool {
				return m.Which() == rpccp.Message_Which_release && must(m.Release()).Id() == sinkExport
			})
			if n := must(m.Release()).ReferenceCount(); n != 1 {
				t.Fatalf("Release of the sink by %d references, want 1", n)
			}
		})
	})
}

// TestConformanceLoopbackDisembargo: calls pipelined on an answer that
// turns out to be the peer's own capability are reflected back to the
// peer, and a senderLoopback Disembargo on that answer comes back only
// after all of them.
func TestConformanceLoopbackDisembargo(t *testing.T) {
	const sinkExport, embargo, n = 10, 77, 5
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		p := start(t, e)
		p.boot.gate, p.boot.echoSink = make(chan struct{}), true
		_, export := p.bootstrap()
		sq := p.question()
		p.send(callMsg(call{q: sq, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe,
			params: subscribeParams(0, 0), caps: []capDesc{{id: sinkExport}}}))
		for range n {
			p.send(callMsg(call{q: p.question(), to: promised(sq, 0), iface: schema.Subscription_TypeID, method: subscriptionCurs}))
		}
		close(p.boot.gate)
		// rpc.capnp, CapDescriptor.receiverHosted: "A capability (or
		// promise) previously exported by the receiver (imported by the
		// sender)."
		r := p.awaitReturn(sq)
		ct := must(must(r.Results()).CapTable())
		if r.Which() != rpccp.Return_Which_results || ct.Len() != 1 ||
			ct.At(0).Which() != rpccp.CapDescriptor_Which_receiverHosted || ct.At(0).ReceiverHosted() != sinkExport {
			t.Fatalf("subscribe should answer our own export %d as receiverHosted\n%s", sinkExport, p.history())
		}
		// rpc.capnp, Disembargo.senderLoopback: "As soon as the receiver
		// has echoed back all pipelined calls on this promise, it will
		// deliver the Disembargo back to the sender with receiverLoopback
		// set to the same value."
		p.send(disembargoMsg(promised(sq, 0), embargo))
		d := p.await("the Disembargo echo", func(m rpccp.Message) bool {
			return m.Which() == rpccp.Message_Which_disembargo
		})
		dis := must(d.Disembargo())
		if dis.Context().Which() != rpccp.Disembargo_context_Which_receiverLoopback || dis.Context().ReceiverLoopback() != embargo {
			t.Fatalf("Disembargo echo: context %s %d, want receiverLoopback %d", dis.Context().Which(), dis.Context().ReceiverLoopback(), embargo)
		}
		reflected := 0
		for _, m := range p.seen {
			if m.Which() == rpccp.Message_Which_call {
				c := must(m.Call())
				tg := must(c.Target())
				if tg.Which() == rpccp.MessageTarget_Which_importedCap && tg.ImportedCap() == sinkExport {
					reflected++
					p.send(returnMsg(c.QuestionId(), nil)) // a peer answers what it is asked
				}
			}
		}
		if reflected != n {
			t.Fatalf("%d of the %d pipelined calls reflected to us before the Disembargo echo\n%s", reflected, n, p.history())
		}
		for i := range n {
			if r := p.awaitReturn(sq + 1 + uint32(i)); r.Which() != rpccp.Return_Which_results {
				t.Fatalf("pipelined call %d: %s\n%s", i, describeReturn(r), p.history())
			}
		}
	})
}
