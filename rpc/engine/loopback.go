package engine

// The peer's senderLoopback Disembargo: reflected to it as
// receiverLoopback once the calls it follows have been forwarded.

import (
	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// handleDisembargo reflects a senderLoopback Disembargo. Calls we
// received for the target were forwarded (written) before this message
// was read, since the reader forwards synchronously, so the reply goes
// straight back; on an answer that has not returned it waits, behind the
// calls queued on the answer (awaitLoopback). The target must resolve to
// a capability the peer hosts.
func (c *Conn) handleDisembargo(m rpccp.Message) error {
	d, err := m.Disembargo()
	if err != nil {
		return protocolErr("unreadable disembargo")
	}
	dc := d.Context()
	switch dc.Which() {
	case rpccp.Disembargo_context_Which_receiverLoopback:
		return c.liftEmbargo(dc.ReceiverLoopback())
	case rpccp.Disembargo_context_Which_senderLoopback:
	default: // accept is level 3
		return protocolErr("disembargo context not expected at level 1")
	}
	mt, err := d.Target()
	if err != nil {
		return protocolErr("unreadable disembargo target")
	}
	c.mu.Lock()
	client, a, ops, err := c.callTarget(mt)
	if err == nil && a != nil && !a.resolved {
		err = a.awaitLoopback(ops, dc.SenderLoopback())
		c.mu.Unlock()
		return err
	}
	var id uint32
	var ok bool
	if err == nil {
		id, ok = c.ownImport(client)
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if !ok {
		return protocolErr("disembargo target does not resolve to the sender")
	}
	return c.sendLoopback(id, dc.SenderLoopback())
}

// sendLoopback writes Disembargo(receiverLoopback) to the peer's import id.
func (c *Conn) sendLoopback(importID, embargoID uint32) error {
	msg, root := newMessage()
	d, err := root.NewDisembargo()
	if err != nil {
		msg.Release()
		return err
	}
	mt, err := d.NewTarget()
	if err != nil {
		msg.Release()
		return err
	}
	mt.SetImportedCap(importID)
	d.Context().SetReceiverLoopback(embargoID)
	_ = c.send(msg)
	return nil
}

// reflect answers a senderLoopback Disembargo that waited for the
// answer: its target must be a capability the peer hosts.
func (a *answer) reflect(content capnp.Ptr, p pending) {
	c := a.c
	var id uint32
	ok := false
	if a.retErr == nil {
		if client, err := capAt(content, p.ops); err == nil {
			id, ok = c.ownImport(client)
		}
	}
	if !ok {
		c.shutdown(protocolErr("disembargo target does not resolve to the sender"), true)
		return
	}
	_ = c.sendLoopback(id, p.embargo)
}

// awaitLoopback queues a senderLoopback Disembargo on an answer that
// has not returned, behind the calls pipelined on it so far (rpc.c++
// waits for an unresolved target likewise); at most maxAwaited per
// answer. Called with c.mu held.
func (a *answer) awaitLoopback(ops []capnp.PipelineOp, embargo uint32) error {
	n := 0
	for _, p := range a.queue {
		if p.loopback {
			n++
		}
	}
	if n >= maxAwaited {
		return protocolErr("too many disembargoes awaiting one question")
	}
	a.queue = append(a.queue, pending{ops: ops, loopback: true, embargo: embargo})
	return nil
}
