package engine

// Promises we export (rpc.capnp, CapDescriptor.senderPromise and
// Resolve). A capability of ours that is an unresolved promise when we
// send it goes as senderPromise, and one goroutine per such export waits
// for the resolution, then sends Resolve: receiverHosted when it resolved
// to a capability the peer hosts (the peer can then shorten the path,
// embargoing as the spec says), otherwise the resolution exported like
// any capability. Calls the peer keeps making on the promise's id are
// delivered to the promise, which forwards them to its resolution.

import (
	capnp "capnproto.org/go/capnp/v3"
)

// exportPromise reports whether client, just exported as id, is an
// unresolved promise, and starts its watch if it has none yet. Called
// with c.mu held.
func (c *Conn) exportPromise(id uint32, client capnp.Client) bool {
	snap := client.Snapshot()
	promise := snap.IsPromise() && !snap.IsResolved()
	snap.Release()
	if !promise {
		return false
	}
	e := c.exports.byID[id]
	if !e.watch {
		e.watch = true
		c.watchers.Add(1)
		go c.watchPromise(e, e.client.AddRef())
	}
	return true
}

// watchPromise sends Resolve for export e once its promise (cl, a
// reference of the watch's own) resolves, unless the peer released the
// export first or the connection ended.
func (c *Conn) watchPromise(e *export, cl capnp.Client) {
	defer c.watchers.Done()
	defer cl.Release()
	if cl.Resolve(c.ctx) != nil {
		return // the connection ended
	}
	msg, root := newMessage()
	res, err := root.NewResolve()
	if err != nil {
		msg.Release()
		return
	}
	res.SetPromiseId(e.id)
	c.mu.Lock()
	if c.dead || c.exports.byID[e.id] != e {
		c.mu.Unlock()
		msg.Release()
		return
	}
	d, err := res.NewCap()
	if err == nil {
		if cl.IsValid() {
			c.describe(d, cl)
		} else {
			d.SetNone()
		}
	}
	c.mu.Unlock()
	if err != nil {
		msg.Release()
		return
	}
	_ = c.send(msg)
}
