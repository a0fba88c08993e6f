package engine

import (
	"errors"
	"sync/atomic"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// incoming is a Call read off the wire, before it is delivered.
type incoming struct {
	msg     *capnp.Message
	call    rpccp.Call
	target  rpccp.MessageTarget
	payload rpccp.Payload
	content capnp.Ptr
}

func readCall(msg *capnp.Message, m rpccp.Message) (incoming, error) {
	in := incoming{msg: msg}
	var err error
	if in.call, err = m.Call(); err != nil {
		return in, protocolErr("unreadable call")
	}
	if in.target, err = in.call.Target(); err != nil {
		return in, protocolErr("unreadable call target")
	}
	if in.payload, err = in.call.Params(); err != nil {
		return in, protocolErr("unreadable call params")
	}
	if in.content, err = in.payload.Content(); err != nil {
		return in, protocolErr("unreadable call params content")
	}
	return in, nil
}

// handleCall delivers the peer's Call to an export, or to a capability
// in the results of one of its earlier questions (queued in order while
// that answer has not returned). The method runs wherever the
// capability runs it; the reader does not wait for it.
func (c *Conn) handleCall(msg *capnp.Message, m rpccp.Message) error {
	in, err := readCall(msg, m)
	if err != nil {
		msg.Release()
		return err
	}
	yourself := false
	switch in.call.SendResultsTo().Which() {
	case rpccp.Call_sendResultsTo_Which_caller:
	case rpccp.Call_sendResultsTo_Which_yourself:
		yourself = true // a tail call: tailcall.go
	default:
		return c.refuseCall(in, capnp.Unimplemented("sendResultsTo thirdParty is level 3"))
	}
	c.mu.Lock()
	client, pa, ops, err := c.callTarget(in.target)
	var a *answer
	if err == nil {
		a, err = c.newAnswer(in.call.QuestionId())
	}
	if a != nil {
		a.yourself = yourself
	}
	if err == nil {
		err = c.takeCaps(in)
	}
	if err != nil {
		if a != nil {
			c.removeAnswer(a)
		}
		c.mu.Unlock()
		msg.Release()
		return err
	}
	recv := capnp.Recv{
		Method:      capnp.Method{InterfaceID: in.call.InterfaceId(), MethodID: in.call.MethodId()},
		Args:        in.content.Struct(),
		ReleaseArgs: releaseOnce(msg),
		Returner:    a,
	}
	if pa != nil && !pa.resolved {
		pa.queue = append(pa.queue, pending{ops: ops, recv: recv, ctx: a.ctx})
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	client.RecvCall(a.ctx, recv)
	return nil
}

// callTarget finds the capability a Call targets. For a promisedAnswer on
// an answer without results it returns that answer and the ops instead;
// on a question that names no answer, a client that fails every call.
// Called with c.mu held; the client is borrowed (only the reader drops
// exports, and RecvCall runs on the reader).
func (c *Conn) callTarget(mt rpccp.MessageTarget) (capnp.Client, *answer, []capnp.PipelineOp, error) {
	switch mt.Which() {
	case rpccp.MessageTarget_Which_importedCap:
		e := c.exports.byID[mt.ImportedCap()]
		if e == nil {
			return capnp.Client{}, nil, nil, protocolErr("call to an unknown export")
		}
		return e.client, nil, nil, nil
	case rpccp.MessageTarget_Which_promisedAnswer:
		pa, err := mt.PromisedAnswer()
		if err != nil {
			return capnp.Client{}, nil, nil, protocolErr("unreadable promisedAnswer")
		}
		a := c.answers[pa.QuestionId()]
		if a == nil {
			// As rpc.c++: the call fails, the connection goes on (the
			// peer may have pipelined it before seeing its Finish
			// cross our Return).
			return capnp.ErrorClient(errFinishedQuestion), nil, nil, nil
		}
		ops, err := readTransform(pa)
		if err != nil || !a.resolved {
			return capnp.Client{}, a, ops, err
		}
		client, err := a.capAt(ops)
		return client, a, ops, err
	default:
		return capnp.Client{}, nil, nil, protocolErr("unknown call target")
	}
}

var errFinishedQuestion = errors.New("call on a finished or unknown question")

// takeCaps imports the params' capabilities into the call message's
// table, where the method finds them. Called with c.mu held.
func (c *Conn) takeCaps(in incoming) error {
	caps, err := in.payload.CapTable()
	if err != nil {
		return protocolErr("unreadable capability table")
	}
	clients, err := c.importCaps(caps)
	in.msg.CapTable().Reset(clients...)
	return err
}

// refuseCall answers a call we will not deliver with an exception.
func (c *Conn) refuseCall(in incoming, why error) error {
	c.mu.Lock()
	a, err := c.newAnswer(in.call.QuestionId())
	c.mu.Unlock()
	in.msg.Release()
	if err != nil {
		return err
	}
	a.PrepareReturn(why)
	a.Return()
	return nil
}

// releaseOnce is a call's ReleaseArgs: it releases the Call message (and
// the params' capabilities) on its first call only.
func releaseOnce(msg *capnp.Message) capnp.ReleaseFunc {
	var done atomic.Bool
	return func() {
		if done.CompareAndSwap(false, true) {
			msg.Release()
		}
	}
}
