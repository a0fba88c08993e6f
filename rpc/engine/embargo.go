package engine

import (
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// handleResolve is the peer resolving a promise it exported to us
// (senderPromise). We keep calling the promise's import id, which the
// peer forwards in order, so the resolution is imported and released at
// once (its reference must still be counted and given back).
func (c *Conn) handleResolve(m rpccp.Message) error {
	res, err := m.Resolve()
	if err != nil {
		return protocolErr("unreadable resolve")
	}
	if res.Which() != rpccp.Resolve_Which_cap {
		return nil // an exception: calls on the promise fail at the peer
	}
	d, err := res.Cap()
	if err != nil {
		return protocolErr("unreadable resolve cap")
	}
	c.mu.Lock()
	client, err := c.importCap(d)
	c.mu.Unlock()
	client.Release()
	return err
}

// handleDisembargo reflects a senderLoopback Disembargo. Calls we
// received for the target were forwarded (written) before this message
// was read, since the reader forwards synchronously, so the reply goes
// straight back. The target must resolve to a capability the peer hosts.
func (c *Conn) handleDisembargo(m rpccp.Message) error {
	d, err := m.Disembargo()
	if err != nil {
		return protocolErr("unreadable disembargo")
	}
	dc := d.Context()
	if dc.Which() != rpccp.Disembargo_context_Which_senderLoopback {
		// We never embargo (we never shorten a path to a promise), so a
		// receiverLoopback answers nothing of ours; accept is level 3.
		return protocolErr("disembargo context not expected at level 1")
	}
	mt, err := d.Target()
	if err != nil {
		return protocolErr("unreadable disembargo target")
	}
	c.mu.Lock()
	client, a, _, err := c.callTarget(mt)
	if err == nil && a != nil && !a.resolved {
		err = protocolErr("disembargo on a question that has not returned")
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
