package engine_test

// Tail calls: the peer answers our call by calling our own capability
// with sendResultsTo.yourself and returning takeFromOtherQuestion, as
// rpc.c++ does for a call it forwards back to our vat.

import (
	"context"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// newMakerOf is a Maker whose make returns a reference to made, once a
// token arrives on proceed.
func newMakerOf(made capnp.Client, proceed <-chan struct{}) capnp.Client {
	return capnp.NewClient(server.New([]server.Method{{Method: makeOne, Impl: func(ctx context.Context, call *server.Call) error {
		select {
		case <-proceed:
		case <-ctx.Done():
			return ctx.Err()
		}
		res, err := call.AllocResults(capnp.ObjectSize{PointerCount: 1})
		if err != nil {
			return err
		}
		return res.SetPtr(0, made.AddRef().EncodeAsPtr(res.Segment()))
	}}}, nil, nil))
}

// tailSetup is our engine offering boot to a raw peer, our question (a
// make on the peer's bootstrap, export 5) sent, and the peer's tail call
// (its question 1, make on our bootstrap) sent back to us.
type tailSetup struct {
	peer   *rawPeer
	ans    *capnp.Answer
	ourQ   uint32 // our make's question id
	theirs capnp.Client
}

func startTail(t *testing.T, boot capnp.Client, pipelined func(*capnp.Answer)) *tailSetup {
	t.Helper()
	a, b := newPipe()
	cli := engineConn(t, a, boot)
	s := &tailSetup{peer: newRawPeer(t, b)}
	ctx := testCtx(t)
	s.theirs = cli.Bootstrap(ctx)
	t.Cleanup(s.theirs.Release)
	s.peer.sendReturnCap(questionOf(s.peer.await(rpccp.Message_Which_bootstrap)), 5)
	ans, release := s.theirs.SendCall(ctx, capnp.Send{Method: makeOne})
	t.Cleanup(release)
	s.ans = ans
	s.ourQ = questionOf(s.peer.await(rpccp.Message_Which_call))
	if pipelined != nil {
		pipelined(ans)
	}
	ours := s.peer.bootstrap(1000)
	s.peer.sendTailCall(1, rawTarget{id: ours}, makeOne)
	return s
}

// TestTailCall: our question takes the results of the peer's tail call
// on our capability, whether the peer claims them before or after our
// method returns; the tail call's Return says resultsSentElsewhere, and
// the capability in the results is our own, called locally.
func TestTailCall(t *testing.T) {
	for _, claimFirst := range []bool{true, false} {
		name := map[bool]string{true: "claimed-before-return", false: "claimed-after-return"}[claimFirst]
		t.Run(name, func(t *testing.T) {
			proceed := make(chan struct{}, 1)
			adder := newAdder()
			defer adder.Release()
			s := startTail(t, newMakerOf(adder, proceed), nil)
			if claimFirst {
				s.peer.sendTakeFrom(s.ourQ, 1)
				proceed <- struct{}{}
			} else {
				proceed <- struct{}{}
			}
			if r := s.peer.expectReturn(1); r.Which() != rpccp.Return_Which_resultsSentElsewhere {
				t.Fatalf("the tail call's Return is %s, want resultsSentElsewhere", r.Which())
			}
			if !claimFirst {
				s.peer.sendTakeFrom(s.ourQ, 1)
			}
			ctx := testCtx(t)
			if _, err := s.ans.Struct(); err != nil {
				t.Fatalf("our call answered by a tail call: %v", err)
			}
			if got, err := callAdd(ctx, s.ans.Field(0, nil).Client(), 41); err != nil || got != 42 {
				t.Fatalf("addOne(41) on the capability the tail call returned: %d, %v", got, err)
			}
			if f := s.peer.await(rpccp.Message_Which_finish); questionOf(f) != s.ourQ {
				t.Fatalf("Finish for %d, want our question %d", questionOf(f), s.ourQ)
			}
			s.peer.sendFinish(1)
		})
	}
}

// TestTailCallEmbargo: a call pipelined on our question went to the
// peer, which forwards it to our tail-called answer; a call made on the
// result once our question has its results must wait for it (the
// embargo), so our capability sees them in the order they were made.
func TestTailCallEmbargo(t *testing.T) {
	proceed := make(chan struct{}, 1)
	rec := &recorder{}
	local := rec.client()
	defer local.Release()
	s := startTail(t, newMakerOf(local, proceed), func(ans *capnp.Answer) {
		_, release := sendAdd(testCtx(t), ans.Field(0, nil).Client(), 0) // the peer never answers it
		t.Cleanup(release)
	})
	s.peer.sendTakeFrom(s.ourQ, 1)
	proceed <- struct{}{}
	if _, err := s.ans.Struct(); err != nil {
		t.Fatal(err)
	}
	second, release := sendAdd(testCtx(t), s.ans.Field(0, nil).Client(), 1)
	defer release()
	d, _ := s.peer.await(rpccp.Message_Which_disembargo).Disembargo()
	if d.Context().Which() != rpccp.Disembargo_context_Which_senderLoopback {
		t.Fatalf("Disembargo %s, want senderLoopback", d.Context().Which())
	}
	// The peer forwards the pipelined call to our answer, then reflects.
	s.peer.sendCall(2, rawTarget{promised: true, id: 1, fields: []uint16{0}}, addOne, nil)
	s.peer.sendReceiverLoopback(rawTarget{promised: true, id: 1, fields: []uint16{0}}, d.Context().SenderLoopback())
	if _, err := second.Struct(); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.got) != 2 || rec.got[0] != 0 || rec.got[1] != 1 {
		t.Fatalf("our capability saw %v, want [0 1] (the forwarded call first)", rec.got)
	}
}

// TestTailCallTakeFromUnknown: takeFromOtherQuestion naming no tail call
// of ours is a protocol error: Abort.
func TestTailCallTakeFromUnknown(t *testing.T) {
	s := startTail(t, newMakerOf(newAdder(), make(chan struct{})), nil)
	s.peer.sendTakeFrom(s.ourQ, 77)
	for {
		if m := s.peer.next(); m.Which() == rpccp.Message_Which_abort {
			return
		}
	}
}
