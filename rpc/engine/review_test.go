package engine

// Hostile sequences found in review: a call canceled by the peer's Finish
// while calls are pipelined on it, and capabilities the peer makes wait on
// a question that has not returned.

import (
	"testing"

	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/schema"
)

// sharevatEngine is our engine's entry in engines.
func sharevatEngine(t *testing.T) engineUnderTest {
	for _, e := range engines {
		if e.name == "sharevat" {
			return e
		}
	}
	t.Fatal("the sharevat engine is not registered")
	return engineUnderTest{}
}

// TestHostileFinishBeforeReturnWithPipelinedCalls: the peer pipelines a
// call on a question, then Finishes the question before its Return, and
// the method returns results anyway. rpc.capnp, Finish: the callee may
// cancel; the Return then says canceled. The pipelined call must fail
// (its target was canceled), the engine must not read the discarded
// results, and the connection keeps serving.
func TestHostileFinishBeforeReturnWithPipelinedCalls(t *testing.T) {
	p := start(t, sharevatEngine(t))
	p.boot.gate, p.boot.deaf = make(chan struct{}), true
	_, export := p.bootstrap()
	sq := p.question()
	p.send(callMsg(call{q: sq, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe, params: subscribeParams(0, -1)}))
	cq := p.question()
	p.send(callMsg(call{q: cq, to: promised(sq, 0), iface: schema.Subscription_TypeID, method: subscriptionCurs}))
	p.send(finishMsg(sq, true))
	p.bootstrap() // handled in order: the Finish was handled before it
	close(p.boot.gate)
	if r := p.awaitReturn(sq); r.Which() != rpccp.Return_Which_canceled && r.Which() != rpccp.Return_Which_exception {
		t.Fatalf("finished subscribe answered %s, want canceled\n%s", describeReturn(r), p.history())
	}
	if o := returnOutcome(p.awaitReturn(cq)); o.exception == "" {
		t.Fatalf("call pipelined on a canceled question: %s, want an exception\n%s", o, p.history())
	}
	p.stillServes(export)
}

// resolveMsg is a Resolve of promise id to the capability at pointer
// field of question q's results (receiverAnswer).
func resolveMsg(id, q uint32, field uint16) builder {
	return func(m rpccp.Message) error {
		r, err := m.NewResolve()
		if err != nil {
			return err
		}
		r.SetPromiseId(id)
		d, err := r.NewCap()
		if err != nil {
			return err
		}
		pa, err := d.NewReceiverAnswer()
		if err != nil {
			return err
		}
		pa.SetQuestionId(q)
		ops, err := pa.NewTransform(1)
		if err != nil {
			return err
		}
		ops.At(0).SetGetPointerField(field)
		return nil
	}
}

// TestHostileAwaitedAnswerCapsBounded: capabilities the peer names in the
// results of a question that has not returned (receiverAnswer), sent again
// and again, in Resolves and in calls it then finishes, leave nothing
// behind per message: what the engine keeps for them is bounded however
// many the peer sends.
func TestHostileAwaitedAnswerCapsBounded(t *testing.T) {
	const n = 2000
	p := start(t, sharevatEngine(t))
	p.boot.gate = make(chan struct{})
	defer close(p.boot.gate)
	_, export := p.bootstrap()
	sq := p.question()
	p.send(callMsg(call{q: sq, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe, params: subscribeParams(0, -1)}))
	for i := range n {
		p.send(resolveMsg(uint32(i), sq, 0))
	}
	// Messages are handled in order: once this Bootstrap is answered,
	// every Resolve above has been (the gated subscribe holds the
	// Reader's calls, so a read would wait).
	p.bootstrap()
	conn := p.conn.(*Conn)
	if w := conn.awaiting(); w > maxAwaited {
		t.Fatalf("after %d Resolves naming one unreturned answer the engine keeps %d waiters, want <= %d", n, w, maxAwaited)
	}
}

// awaiting counts the receiverAnswer promises kept on unreturned answers.
func (c *Conn) awaiting() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, a := range c.answers {
		n += len(a.waiters)
	}
	return n
}

// TestHostileAwaitedTransformsLimited: more than maxAwaited distinct
// transforms awaited on one unreturned question end the connection with
// an Abort instead of growing the engine's memory.
func TestHostileAwaitedTransformsLimited(t *testing.T) {
	p := start(t, sharevatEngine(t))
	p.boot.gate = make(chan struct{})
	defer close(p.boot.gate)
	_, export := p.bootstrap()
	sq := p.question()
	p.send(callMsg(call{q: sq, to: imported(export), iface: schema.Reader_TypeID, method: readerSubscribe, params: subscribeParams(0, -1)}))
	for i := range maxAwaited + 1 {
		if err := p.trySend(resolveMsg(uint32(i), sq, uint16(i))); err != nil {
			break
		}
	}
	if o := p.refused(0, false); o.abort == "" {
		t.Fatalf("%d distinct awaited transforms: %s, want an Abort\n%s", maxAwaited+1, o, p.history())
	}
}
