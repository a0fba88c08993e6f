package engine

import (
	capnp "capnproto.org/go/capnp/v3"
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

// An embargo holds back calls on a capability of ours that came back in
// the results of one of our questions on which we had pipelined calls
// (rpc.capnp, Disembargo): those calls went to the peer, which reflects
// them to us, and a call made on the result now must not overtake them.
// The result's table entry becomes a local promise, fulfilled with the
// capability when our Disembargo(senderLoopback) comes back as
// receiverLoopback, after the reflected calls.
type embargo struct {
	client capnp.Client // our capability, owned until the embargo lifts
	res    capnp.Resolver[capnp.Client]
}

// embargoTable holds embargoes by id. Guarded by Conn.mu.
type embargoTable struct {
	byID map[uint32]embargo
	next uint32
}

func (t *embargoTable) add(e embargo) uint32 {
	if t.byID == nil {
		t.byID = make(map[uint32]embargo)
	}
	id := t.next
	t.next++
	t.byID[id] = e
	return id
}

func (t *embargoTable) drain() []embargo {
	out := make([]embargo, 0, len(t.byID))
	for _, e := range t.byID {
		out = append(out, e)
	}
	t.byID = nil
	return out
}

// disembargo is one Disembargo to send: its id and the transform from
// the question's results to the embargoed capability.
type disembargo struct {
	id  uint32
	ops []capnp.PipelineOp
}

// embargoResults puts an embargo on every capability of ours that a
// transform used by q's pipelined calls reaches in its results. Called
// with c.mu held.
func (c *Conn) embargoResults(q *question, ret rpccp.Return, msg *capnp.Message) []disembargo {
	if len(q.piped) == 0 {
		return nil
	}
	payload, _ := ret.Results()
	descs, _ := payload.CapTable()
	return c.embargo(q, msg, func(idx int) bool { return idx < descs.Len() && isLocal(descs.At(idx)) })
}

// embargo puts an embargo on each capability in q's results (in msg)
// that a transform of q's pipelined calls reaches and local says is ours.
// Called with c.mu held.
func (c *Conn) embargo(q *question, msg *capnp.Message, local func(idx int) bool) []disembargo {
	done := map[int]bool{}
	var out []disembargo
	for _, ops := range q.piped {
		idx, ok := capIndex(q.results, ops, msg)
		if !ok || done[idx] || !local(idx) {
			continue
		}
		done[idx] = true
		p, res := capnp.NewLocalPromise[capnp.Client]()
		id := c.embargoes.add(embargo{client: msg.CapTable().At(idx), res: res})
		msg.CapTable().Set(capnp.CapabilityID(idx), p)
		out = append(out, disembargo{id: id, ops: ops})
	}
	return out
}

// capIndex is the capability table index ops reach in content.
func capIndex(content capnp.Ptr, ops []capnp.PipelineOp, msg *capnp.Message) (int, bool) {
	p, err := capnp.Transform(content, ops)
	if err != nil || !p.Interface().IsValid() {
		return 0, false
	}
	idx := int(p.Interface().Capability())
	return idx, idx < msg.CapTable().Len()
}

// isLocal reports whether a descriptor names a capability of ours.
func isLocal(d rpccp.CapDescriptor) bool {
	w := d.Which()
	return w == rpccp.CapDescriptor_Which_receiverHosted || w == rpccp.CapDescriptor_Which_receiverAnswer
}

// appendOps adds ops to list unless an equal transform is there.
func appendOps(list [][]capnp.PipelineOp, ops []capnp.PipelineOp) [][]capnp.PipelineOp {
	for _, x := range list {
		if sameOps(x, ops) {
			return list
		}
	}
	return append(list, ops)
}

func sameOps(a, b []capnp.PipelineOp) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Field != b[i].Field {
			return false
		}
	}
	return true
}

// sendDisembargo writes Disembargo(senderLoopback) to the capability at
// d.ops in the results of question qid.
func (c *Conn) sendDisembargo(qid uint32, d disembargo) {
	msg, root := newMessage()
	dm, err := root.NewDisembargo()
	if err != nil {
		msg.Release()
		return
	}
	mt, err := dm.NewTarget()
	if err == nil {
		var pa rpccp.PromisedAnswer
		if pa, err = mt.NewPromisedAnswer(); err == nil {
			err = writePromisedAnswer(pa, qid, d.ops)
		}
	}
	if err != nil {
		msg.Release()
		return
	}
	dm.Context().SetSenderLoopback(d.id)
	_ = c.send(msg)
}

// liftEmbargo is the peer reflecting our Disembargo: the calls it held
// back go to our capability, in order.
func (c *Conn) liftEmbargo(id uint32) error {
	c.mu.Lock()
	e, ok := c.embargoes.byID[id]
	delete(c.embargoes.byID, id)
	c.mu.Unlock()
	if !ok {
		return protocolErr("receiverLoopback for an unknown embargo")
	}
	e.res.Fulfill(e.client)
	return nil
}
