package engine

import (
	"context"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// answer is one of the peer's questions (a Call or a Bootstrap) and the
// capnp.Returner of its call: the results are allocated straight in the
// Return message, which is kept until the peer's Finish so that calls
// pipelined on the answer find their capability.
type answer struct {
	c      *Conn
	id     uint32
	ctx    context.Context
	cancel context.CancelFunc

	// Set by the call's goroutine before Return.
	msg     *capnp.Message // the Return being built, then kept
	payload rpccp.Payload
	retErr  error

	// Guarded by c.mu.
	resolved   bool      // results are final: pipelined calls go straight to them
	sent       bool      // the Return is written
	finished   bool      // the peer's Finish arrived
	noFinish   bool      // the Return says noFinishNeeded: forgotten once written
	releaseRes bool      // ... and asked us to release the result caps
	queue      []pending // calls pipelined before resolved, in arrival order
	waiters    []waiter  // receiverAnswer promises to fulfil when resolved
	results    capnp.Ptr
	exports    []uint32 // exports sent in the Return's capability table

	// A tail call (sendResultsTo.yourself): the results stay here, for
	// the question of ours whose Return names this answer (tailcall.go).
	yourself bool
	taker    *question // guarded by c.mu
	taken    bool      // taker's results are being (or were) handed over
}

// pending is a call pipelined on an answer that has not returned yet, or
// (loopback) a senderLoopback Disembargo to reflect once it has, after
// the calls queued before it.
type pending struct {
	ops      []capnp.PipelineOp
	recv     capnp.Recv
	ctx      context.Context
	loopback bool
	embargo  uint32 // the Disembargo's id, when loopback
}

// waiter is a receiverAnswer capability waiting for its answer: one per
// distinct transform, shared by every descriptor naming it.
type waiter struct {
	ops    []capnp.PipelineOp
	res    capnp.Resolver[capnp.Client]
	client capnp.Client // our reference to the promise, dropped once settled
}

var _ capnp.Returner = (*answer)(nil)

// newAnswer registers the peer's question id. Called with c.mu held.
func (c *Conn) newAnswer(id uint32) (*answer, error) {
	if _, dup := c.answers[id]; dup {
		return nil, protocolErr("question id already in use")
	}
	a := &answer{c: c, id: id}
	a.ctx, a.cancel = context.WithCancel(c.ctx)
	c.answers[id] = a
	return a, nil
}

// handleBootstrap answers the peer's Bootstrap with our bootstrap
// capability (or an exception when we offer none).
func (c *Conn) handleBootstrap(m rpccp.Message) error {
	boot, err := m.Bootstrap()
	if err != nil {
		return protocolErr("unreadable bootstrap")
	}
	c.mu.Lock()
	a, err := c.newAnswer(boot.QuestionId())
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if !c.boot.IsValid() {
		a.PrepareReturn(capnp.Unimplemented("this vat offers no bootstrap capability"))
		a.Return()
		return nil
	}
	st, err := a.AllocResults(capnp.ObjectSize{})
	if err == nil {
		err = a.payload.SetContent(c.boot.AddRef().EncodeAsPtr(st.Segment()))
	}
	a.PrepareReturn(err)
	a.Return()
	return nil
}

// AllocResults allocates the results in the Return message.
func (a *answer) AllocResults(sz capnp.ObjectSize) (capnp.Struct, error) {
	msg, root := newMessage()
	ret, err := root.NewReturn()
	if err != nil {
		msg.Release()
		return capnp.Struct{}, err
	}
	ret.SetAnswerId(a.id)
	ret.SetReleaseParamCaps(false)
	payload, err := ret.NewResults()
	if err != nil {
		msg.Release()
		return capnp.Struct{}, err
	}
	st, err := capnp.NewStruct(payload.Segment(), sz)
	if err == nil {
		err = payload.SetContent(st.ToPtr())
	}
	if err != nil {
		msg.Release()
		return capnp.Struct{}, err
	}
	a.msg, a.payload = msg, payload
	return st, nil
}

// PrepareReturn records the outcome.
func (a *answer) PrepareReturn(e error) {
	a.retErr = e
	if e == nil && a.msg == nil {
		if _, err := a.AllocResults(capnp.ObjectSize{}); err != nil {
			a.retErr = err
		}
	}
}

// Return writes the Return from the calling goroutine, then delivers the
// calls pipelined on the answer so far, in order (as the C++ reference
// does: the Return first). Until they are delivered the reader holds
// back further calls, and calls on the answer keep queuing behind them.
func (a *answer) Return() {
	var content capnp.Ptr
	if a.retErr == nil {
		content, _ = a.payload.Content()
	}
	c := a.c
	c.mu.Lock()
	canceled := a.finished
	if canceled && a.retErr == nil {
		// The results are discarded with the canceled Return: calls
		// pipelined on the answer fail instead of reading them.
		a.retErr, content = errCanceled, capnp.Ptr{}
	}
	if a.retErr == nil && !canceled && !c.dead && !a.yourself {
		var err error
		if a.exports, err = c.fillCapTable(a.payload, a.msg.CapTable()); err != nil {
			a.retErr = err
		}
	}
	a.forgetEarly(canceled)
	// With nothing queued the results are final at once, and the reader
	// need not wait for this Return.
	queued := len(a.queue) > 0 || len(a.waiters) > 0
	if queued {
		c.draining++
	} else {
		a.resolved, a.results = true, content
	}
	c.mu.Unlock()
	if !c.isDead() {
		a.writeReturn(canceled)
	}
	if queued {
		a.resolve(content)
	}
	a.handOver(content) // before sent: a Finish cannot drop the results yet
	c.mu.Lock()
	a.sent = true
	done := a.finished || c.dead || a.noFinish
	if done {
		c.removeAnswer(a)
	}
	c.mu.Unlock()
	if done {
		a.drop()
	}
}

// forgetEarly makes a Return whose results hold no capability (or an
// exception) say noFinishNeeded, and frees the id before it is written
// (rpc.capnp: the answer table entry "has already been cleaned up"), so
// the peer may reuse the id at once: the peer's Finish, if it sends one
// anyway, is ignored as any Finish naming no answer, and a call it
// pipelined on the answer meanwhile fails alone, as on any finished
// answer. A tail call's results (kept for another question) and a
// bootstrap capability need the Finish. Called with c.mu held.
func (a *answer) forgetEarly(canceled bool) {
	if canceled || a.yourself || a.c.dead {
		return
	}
	if a.retErr == nil && (a.msg == nil || a.msg.CapTable().Len() > 0) {
		return
	}
	a.noFinish = true
	a.c.removeAnswer(a)
}

// writeReturn writes the Return: the results message, or a new one for
// an exception, a call the peer canceled or a tail call's results kept
// here (resultsSentElsewhere).
func (a *answer) writeReturn(canceled bool) {
	var msg *capnp.Message
	if a.yourself && !canceled {
		msg = redirectReturn(a.id)
		defer msg.Release()
	} else {
		msg = a.returnMessage(canceled)
	}
	if err := a.c.codec.Encode(msg); err != nil {
		a.c.closeCodec()
	}
}

// ReleaseResults is a no-op: the results live until the peer's Finish.
func (a *answer) ReleaseResults() {}

// returnMessage is the Return to write: the results message, or a new
// one for an exception or a call the peer canceled.
func (a *answer) returnMessage(canceled bool) *capnp.Message {
	if a.retErr == nil && !canceled {
		if a.noFinish {
			setNoFinishNeeded(a.msg)
		}
		return a.msg
	}
	msg, root := newMessage()
	ret, _ := root.NewReturn()
	ret.SetAnswerId(a.id)
	ret.SetReleaseParamCaps(false)
	ret.SetNoFinishNeeded(a.noFinish)
	if canceled {
		ret.SetCanceled()
	} else if ex, err := ret.NewException(); err == nil {
		encodeException(ex, a.retErr)
	}
	if a.msg != nil {
		a.msg.Release()
	}
	a.msg = msg
	return msg
}

// setNoFinishNeeded sets the flag in a results Return built by
// AllocResults.
func setNoFinishNeeded(msg *capnp.Message) {
	if root, err := rpccp.ReadRootMessage(msg); err == nil {
		if ret, err := root.Return(); err == nil {
			ret.SetNoFinishNeeded(true)
		}
	}
}

// resolve makes the results final: the queued calls are delivered in
// order and the receiverAnswer promises fulfilled; then the reader may
// deliver calls again.
func (a *answer) resolve(content capnp.Ptr) {
	c := a.c
	for {
		c.mu.Lock()
		queue, waiters := a.queue, a.waiters
		a.queue, a.waiters = nil, nil
		if len(queue) == 0 && len(waiters) == 0 {
			a.resolved, a.results = true, content
			if c.draining--; c.draining == 0 {
				c.drained.Broadcast()
			}
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		for _, p := range queue {
			a.deliver(content, p)
		}
		for _, w := range waiters {
			a.fulfil(content, w)
		}
	}
}

// deliver hands one pipelined call to the capability at its ops.
func (a *answer) deliver(content capnp.Ptr, p pending) {
	if p.loopback {
		a.reflect(content, p)
		return
	}
	if a.retErr != nil {
		p.recv.Reject(a.retErr)
		return
	}
	client, err := capAt(content, p.ops)
	if err != nil {
		// The same violation as on a returned answer: the peer aborts.
		a.c.shutdown(err, true)
		p.recv.Reject(err)
		return
	}
	client.RecvCall(p.ctx, p.recv)
}

func (a *answer) fulfil(content capnp.Ptr, w waiter) {
	defer w.client.Release()
	if a.retErr != nil {
		w.res.Reject(a.retErr)
		return
	}
	client, err := capAt(content, w.ops)
	if err != nil {
		w.res.Reject(err)
		return
	}
	w.res.Fulfill(client.AddRef())
}

// capAt is the capability at ops in the answer's results. Called with
// c.mu held, after resolved.
func (a *answer) capAt(ops []capnp.PipelineOp) (capnp.Client, error) {
	if a.retErr != nil {
		return capnp.ErrorClient(a.retErr), nil
	}
	return capAt(a.results, ops)
}

// maxAwaited bounds the distinct capabilities a peer may name in the
// results of one of its questions that has not returned (receiverAnswer):
// each is a promise the engine keeps until the Return.
const maxAwaited = 64
