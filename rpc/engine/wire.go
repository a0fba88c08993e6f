package engine

import (
	"errors"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/exc"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// protocolError is a violation of the RPC protocol by the peer; it ends
// the connection with an Abort carrying its text.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return "sharevat/rpc/engine: protocol violation: " + e.msg }

func protocolErr(msg string) error { return &protocolError{msg: msg} }

// peerAbort is the peer's Abort; the connection ends without answering it.
type peerAbort struct{ err error }

func (e *peerAbort) Error() string { return "peer aborted: " + e.err.Error() }
func (e *peerAbort) Unwrap() error { return e.err }

func peerAborted(m rpccp.Message) error {
	ex, err := m.Abort()
	if err != nil {
		return &peerAbort{err: errors.New("(unreadable exception)")}
	}
	return &peerAbort{err: decodeException(ex)}
}

// maxReason bounds the reason text we copy out of a peer's exception.
const maxReason = 1024

// decodeException turns a wire exception into an error whose type
// (failed, overloaded, disconnected, unimplemented) survives.
func decodeException(ex rpccp.Exception) error {
	reason, _ := ex.Reason()
	if len(reason) > maxReason {
		reason = reason[:maxReason]
	}
	typ := exc.Type(ex.Type())
	if typ > exc.Unimplemented {
		typ = exc.Failed
	}
	return exc.New(typ, "", reason)
}

// encodeException fills ex from err.
func encodeException(ex rpccp.Exception, err error) {
	_ = ex.SetReason(err.Error())
	ex.SetType(rpccp.Exception_Type(exc.TypeOf(err)))
}

// sendAbort tells the peer why we end the connection (best effort).
func (c *Conn) sendAbort(why error) {
	msg, root := newMessage()
	ex, err := root.NewAbort()
	if err != nil {
		msg.Release()
		return
	}
	var pe *protocolError
	if errors.As(why, &pe) {
		encodeException(ex, why)
	} else {
		encodeException(ex, capnp.Disconnected(why.Error()))
	}
	_ = c.codec.Encode(msg)
	msg.Release()
}

// sendUnimplemented echoes a message we do not handle back to the peer.
func (c *Conn) sendUnimplemented(m rpccp.Message) error {
	msg, root := newMessage()
	if err := root.SetUnimplemented(m); err != nil {
		msg.Release()
		return protocolErr("message too deep or large to echo as unimplemented")
	}
	_ = c.send(msg)
	return nil
}

// readTransform converts a PromisedAnswer's transform to pipeline ops.
func readTransform(pa rpccp.PromisedAnswer) ([]capnp.PipelineOp, error) {
	list, err := pa.Transform()
	if err != nil {
		return nil, protocolErr("unreadable transform")
	}
	var ops []capnp.PipelineOp
	for i := 0; i < list.Len(); i++ {
		op := list.At(i)
		switch op.Which() {
		case rpccp.PromisedAnswer_Op_Which_noop:
		case rpccp.PromisedAnswer_Op_Which_getPointerField:
			ops = append(ops, capnp.PipelineOp{Field: op.GetPointerField()})
		default:
			return nil, protocolErr("unknown transform op")
		}
	}
	return ops, nil
}

// writePromisedAnswer fills pa with a question id and transform.
func writePromisedAnswer(pa rpccp.PromisedAnswer, qid uint32, ops []capnp.PipelineOp) error {
	pa.SetQuestionId(qid)
	if len(ops) == 0 {
		return nil
	}
	list, err := pa.NewTransform(int32(len(ops)))
	if err != nil {
		return err
	}
	for i, op := range ops {
		list.At(i).SetGetPointerField(op.Field)
	}
	return nil
}

// capAt applies ops to content and returns the capability there: the
// null client for a null pointer, an error when the pointer is not a
// capability or names no entry of the message's capability table.
func capAt(content capnp.Ptr, ops []capnp.PipelineOp) (capnp.Client, error) {
	p, err := capnp.Transform(content, ops)
	if err != nil {
		return capnp.Client{}, protocolErr("transform does not lead to a pointer field")
	}
	if !p.IsValid() {
		return capnp.Client{}, nil
	}
	iface := p.Interface()
	if !iface.IsValid() {
		return capnp.Client{}, protocolErr("transform names no capability")
	}
	msg := iface.Message()
	if msg == nil || int(iface.Capability()) >= msg.CapTable().Len() {
		return capnp.Client{}, protocolErr("capability index out of range")
	}
	return msg.CapTable().At(int(iface.Capability())), nil
}
