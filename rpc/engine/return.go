package engine

import (
	"context"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// handleReturn settles one of our questions. The Finish goes out at once
// (after the pipelined Calls being written on the question, if any): the
// promise is resolved, so no later call can target the question.
func (c *Conn) handleReturn(msg *capnp.Message, m rpccp.Message) error {
	ret, err := m.Return()
	if err != nil {
		msg.Release()
		return protocolErr("unreadable return")
	}
	c.mu.Lock()
	q := c.questions.byID[ret.AnswerId()]
	if q == nil || q.returned || q.redirected {
		c.mu.Unlock()
		msg.Release()
		return protocolErr("return for an unknown question")
	}
	var gone []capnp.Client
	if ret.ReleaseParamCaps() {
		gone = c.releaseExports(q.paramExports)
	}
	if ret.Which() == rpccp.Return_Which_takeFromOtherQuestion {
		return c.takeFrom(q, ret.TakeFromOtherQuestion(), msg, gone)
	}
	q.returned = true
	canceled := q.canceled
	var results capnp.Ptr
	var rerr error
	if !canceled {
		results, rerr, err = c.readReturn(msg, ret)
		q.results, q.err = results, rerr
		if err == nil && rerr == nil {
			q.resultMsg = msg
			q.embargoes = c.embargoResults(q, ret, msg)
		}
	}
	q.noFinish = ret.NoFinishNeeded() && !canceled
	q.finishDue = true
	finish := q.takeFinish()
	if q.finishWritten {
		c.questions.remove(q.id) // canceled, and the Finish is on the wire
	}
	stop := q.stop
	c.mu.Unlock()
	releaseAll(gone)
	if stop != nil {
		stop()
	}
	if canceled || err != nil || rerr != nil {
		msg.Release()
	}
	if err != nil {
		return err
	}
	if !canceled {
		q.settle(results, rerr)
	}
	if finish {
		c.finishQuestion(q)
	}
	return nil
}

// readReturn reads a Return's outcome; results caps become clients in
// msg's capability table. Called with c.mu held.
func (c *Conn) readReturn(msg *capnp.Message, ret rpccp.Return) (capnp.Ptr, error, error) {
	switch ret.Which() {
	case rpccp.Return_Which_results:
		payload, err := ret.Results()
		if err != nil {
			return capnp.Ptr{}, nil, protocolErr("unreadable results")
		}
		content, err := payload.Content()
		if err != nil {
			return capnp.Ptr{}, nil, protocolErr("unreadable results content")
		}
		caps, _ := payload.CapTable()
		clients, err := c.importCaps(caps)
		msg.CapTable().Reset(clients...)
		if err != nil {
			return capnp.Ptr{}, nil, err
		}
		return content, nil, nil
	case rpccp.Return_Which_exception:
		ex, err := ret.Exception()
		if err != nil {
			return capnp.Ptr{}, nil, protocolErr("unreadable exception")
		}
		return capnp.Ptr{}, decodeException(ex), nil
	case rpccp.Return_Which_canceled:
		return capnp.Ptr{}, errCanceled, nil
	default:
		return capnp.Ptr{}, capnp.Unimplemented("return kind not supported at level 1"), nil
	}
}

// finishQuestion writes the Disembargoes of a returned question (after
// every Call pipelined on it: they must not overtake one), then its
// Finish (releasing the results' caps if the caller canceled: it never
// read them; none when the Return said noFinishNeeded), and frees its id
// if the Return has arrived; otherwise handleReturn frees it. Its caller
// took the Finish (takeFinish).
func (c *Conn) finishQuestion(q *question) {
	c.mu.Lock()
	embargoes := q.embargoes
	q.embargoes = nil
	canceled, noFinish := q.canceled, q.noFinish
	c.mu.Unlock()
	for _, d := range embargoes {
		c.sendDisembargo(q.id, d)
	}
	if !noFinish {
		c.sendFinish(q.id, canceled)
	}
	c.mu.Lock()
	q.finishWritten = true
	if q.returned && c.questions.byID[q.id] == q {
		c.questions.remove(q.id)
	}
	c.mu.Unlock()
}

// PipelineSend makes a call on a capability in this question's results:
// a Call to promisedAnswer while the Return has not arrived, a call on the
// capability itself once it has.
func (q *question) PipelineSend(ctx context.Context, ops []capnp.PipelineOp, s capnp.Send) (*capnp.Answer, capnp.ReleaseFunc) {
	tgt, client, err := q.pipeTarget(ops)
	if err != nil {
		return capnp.ErrorAnswer(s.Method, err), func() {}
	}
	if tgt == nil {
		return client.SendCall(ctx, s)
	}
	defer q.doneSending()
	return q.c.sendCall(ctx, *tgt, s)
}

// PipelineRecv is PipelineSend for a call received from elsewhere.
func (q *question) PipelineRecv(ctx context.Context, ops []capnp.PipelineOp, r capnp.Recv) capnp.PipelineCaller {
	tgt, client, err := q.pipeTarget(ops)
	if err != nil {
		r.Reject(err)
		return nil
	}
	if tgt == nil {
		return client.RecvCall(ctx, r)
	}
	defer q.doneSending()
	return q.c.forward(ctx, *tgt, r)
}

// pipeTarget says where a pipelined call goes: a promisedAnswer target
// (counted in q.sending until doneSending) or, after the Return, the
// result capability itself.
func (q *question) pipeTarget(ops []capnp.PipelineOp) (*dest, capnp.Client, error) {
	c := q.c
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case q.canceled:
		return nil, capnp.Client{}, errCanceled
	case q.returned && q.err != nil:
		return nil, capnp.Client{}, q.err
	case q.returned:
		cl, err := capAt(q.results, ops)
		return nil, cl, err
	case c.dead:
		return nil, capnp.Client{}, errCanceled
	}
	q.sending++
	q.piped = appendOps(q.piped, ops)
	return &dest{answer: true, id: q.id, ops: ops}, capnp.Client{}, nil
}

// doneSending ends one pipelined Call's write; the last one after the
// Return or the cancellation sends the Finish.
func (q *question) doneSending() {
	c := q.c
	c.mu.Lock()
	q.sending--
	finish := q.takeFinish()
	c.mu.Unlock()
	if finish {
		c.finishQuestion(q)
	}
}

// forward sends a call received for a capability the peer hosts on to
// the peer, and copies its outcome into r's Returner when it arrives.
func (c *Conn) forward(ctx context.Context, tgt dest, r capnp.Recv) capnp.PipelineCaller {
	ans, release := c.sendCall(ctx, tgt, capnp.Send{
		Method:    r.Method,
		ArgsSize:  r.Args.Size(),
		PlaceArgs: func(st capnp.Struct) error { return st.CopyFrom(r.Args) },
	})
	r.ReleaseArgs()
	go func() { // a proxied call is rare; its wait costs a goroutine
		defer release()
		res, err := ans.Struct()
		if err == nil {
			var out capnp.Struct
			if out, err = r.Returner.AllocResults(res.Size()); err == nil {
				err = out.CopyFrom(res)
			}
		}
		r.Returner.PrepareReturn(err)
		r.Returner.Return()
		r.Returner.ReleaseResults()
	}()
	return ans
}

// Bootstrap asks the peer for its bootstrap capability. The result is a
// promise until the Return arrives; the caller releases it.
func (c *Conn) Bootstrap(ctx context.Context) capnp.Client {
	m := capnp.Method{InterfaceID: 0, MethodID: 0, InterfaceName: "rpc", MethodName: "bootstrap"}
	q := &question{c: c}
	q.promise = capnp.NewPromise(m, q, nil)
	msg, root := newMessage()
	boot, err := root.NewBootstrap()
	if err != nil {
		msg.Release()
		return capnp.ErrorClient(err)
	}
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		msg.Release()
		return capnp.ErrorClient(capnp.Disconnected("connection closed"))
	}
	c.questions.add(q)
	boot.SetQuestionId(q.id)
	c.mu.Unlock()
	client := q.promise.Answer().Client().AddRef()
	if c.send(msg) != nil {
		q.settleErr(capnp.Disconnected("connection closed"))
	} else {
		q.watch(ctx)
	}
	client.AttachReleaser(q.release)
	return client
}
