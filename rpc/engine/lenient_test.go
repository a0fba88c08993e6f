package engine_test

// Leniency as the C++ reference (rpc.c++) where it is safe: a Finish for
// an id that names nothing is ignored, a Call on a finished question
// fails that call only, and a senderLoopback Disembargo on an answer
// that has not returned waits for it.

import (
	"context"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/rpc/engine"
)

// serveRaw is our engine serving boot, and a raw peer driving it.
func serveRaw(t *testing.T, boot capnp.Client) *rawPeer {
	t.Helper()
	a, b := newPipe()
	srv := engine.NewConn(a, &engine.Options{BootstrapClient: boot})
	t.Cleanup(func() {
		_ = srv.Close()
		_ = b.Close()
		waitDone(t, srv.Done())
	})
	return newRawPeer(t, b)
}

// newGatedEcho is a Maker whose echo returns the capability it is given
// once gate is closed.
func newGatedEcho(gate <-chan struct{}) capnp.Client {
	return capnp.NewClient(server.New([]server.Method{{Method: echoCap, Impl: func(ctx context.Context, call *server.Call) error {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
		p, err := call.Args().Ptr(0)
		if err != nil {
			return err
		}
		res, err := call.AllocResults(capnp.ObjectSize{PointerCount: 1})
		if err != nil {
			return err
		}
		return res.SetPtr(0, p.Interface().Client().AddRef().EncodeAsPtr(res.Segment()))
	}}}, nil, nil))
}

// TestLenientFinishForUnknownQuestion: a Finish naming no answer (never
// asked, or finished twice) is ignored (rpc.c++ handleFinish), and the
// connection goes on serving.
func TestLenientFinishForUnknownQuestion(t *testing.T) {
	peer := serveRaw(t, newMaker())
	peer.sendFinish(777)
	peer.bootstrap(0)
	peer.sendFinish(0)
	peer.sendFinish(0)
	peer.bootstrap(1)
}

// TestLenientCallOnFinishedQuestion: a Call pipelined on a question the
// peer has finished fails with an exception Return (rpc.c++
// getMessageTarget: a broken pipeline), and the connection goes on.
func TestLenientCallOnFinishedQuestion(t *testing.T) {
	peer := serveRaw(t, newMaker())
	peer.bootstrap(0)
	peer.sendFinish(0)
	peer.sendCall(1, rawTarget{promised: true, id: 0}, makeOne, nil)
	if r := peer.expectReturn(1); r.Which() != rpccp.Return_Which_exception {
		t.Fatalf("a call on a finished question answered %s, want an exception", r.Which())
	}
	peer.sendFinish(1)
	peer.bootstrap(2)
}

// TestLenientLoopbackWaitsForAnswer: the peer sends its own capability to
// echo, pipelines a call on the answer, then a senderLoopback Disembargo
// to it before the echo has returned. The Disembargo waits for the
// answer (rpc.c++ handleDisembargo, whenResolved) and is reflected after
// the pipelined call, which is forwarded to the peer's capability.
func TestLenientLoopbackWaitsForAnswer(t *testing.T) {
	const mine, embargoID = 10, 7
	gate := make(chan struct{})
	peer := serveRaw(t, newGatedEcho(gate))
	boot := peer.bootstrap(0)
	peerCap := uint32(mine)
	peer.sendCall(1, rawTarget{id: boot}, echoCap, &peerCap)
	peer.sendCall(2, rawTarget{promised: true, id: 1, fields: []uint16{0}}, addOne, nil)
	peer.sendLoopback(rawTarget{promised: true, id: 1, fields: []uint16{0}}, embargoID)
	peer.bootstrap(3) // handled in order: the Disembargo was, without an Abort
	close(gate)
	r := peer.expectReturn(1)
	if d, ok := resultDesc(r, 0); !ok || d.Which() != rpccp.CapDescriptor_Which_receiverHosted || d.ReceiverHosted() != mine {
		t.Fatalf("echo returned %s, want our capability %d as receiverHosted", r.Which(), mine)
	}
	c := peer.expect(rpccp.Message_Which_call)
	call, _ := c.Call()
	if tgt, _ := call.Target(); tgt.Which() != rpccp.MessageTarget_Which_importedCap || tgt.ImportedCap() != mine {
		t.Fatalf("the pipelined call was not forwarded to our capability %d", mine)
	}
	m := peer.expect(rpccp.Message_Which_disembargo)
	d, _ := m.Disembargo()
	tgt, _ := d.Target()
	if d.Context().Which() != rpccp.Disembargo_context_Which_receiverLoopback || d.Context().ReceiverLoopback() != embargoID ||
		tgt.Which() != rpccp.MessageTarget_Which_importedCap || tgt.ImportedCap() != mine {
		t.Fatalf("want Disembargo(receiverLoopback %d) to our capability %d", embargoID, mine)
	}
}
