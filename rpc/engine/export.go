package engine

import (
	"reflect"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// export is one capability of ours that the peer holds: refs counts the
// descriptors we sent for it minus the references the peer released.
type export struct {
	id     uint32
	client capnp.Client // our own reference, released when refs reaches 0
	refs   uint32
	key    any  // comparable Brand value used to find it again, or nil
	watch  bool // an unresolved promise, watched for its Resolve (promise.go)
}

// exportTable holds our exports by id, and by brand so that a capability
// exported twice keeps one id. Guarded by Conn.mu.
type exportTable struct {
	byID    map[uint32]*export
	byBrand map[any][]*export
	free    []uint32
	next    uint32
}

func (t *exportTable) init() {
	t.byID = make(map[uint32]*export)
	t.byBrand = make(map[any][]*export)
}

// add returns the export id for client, with one more reference. It
// takes its own reference to client when the export is new.
func (t *exportTable) add(client capnp.Client) uint32 {
	key := brandKey(client)
	if key != nil {
		for _, e := range t.byBrand[key] {
			if e.client.IsSame(client) {
				e.refs++
				return e.id
			}
		}
	}
	e := &export{id: t.allocID(), client: client.AddRef(), refs: 1, key: key}
	t.byID[e.id] = e
	if key != nil {
		t.byBrand[key] = append(t.byBrand[key], e)
	}
	return e.id
}

func (t *exportTable) allocID() uint32 {
	if n := len(t.free); n > 0 {
		id := t.free[n-1]
		t.free = t.free[:n-1]
		return id
	}
	id := t.next
	t.next++
	return id
}

// release drops n references to export id. It returns the client to
// release (outside the lock) when the export is gone, or an error when
// the peer names an unknown export or releases more than it holds.
func (t *exportTable) release(id, n uint32) (capnp.Client, error) {
	e := t.byID[id]
	if e == nil {
		return capnp.Client{}, protocolErr("release of an unknown export")
	}
	if n > e.refs {
		return capnp.Client{}, protocolErr("release of more references than were sent")
	}
	e.refs -= n
	if e.refs > 0 {
		return capnp.Client{}, nil
	}
	delete(t.byID, id)
	t.free = append(t.free, id)
	if e.key != nil {
		t.unindex(e)
	}
	return e.client, nil
}

func (t *exportTable) unindex(e *export) {
	list := t.byBrand[e.key]
	for i, x := range list {
		if x == e {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(t.byBrand, e.key)
	} else {
		t.byBrand[e.key] = list
	}
}

// drain empties the table and returns what it held.
func (t *exportTable) drain() []*export {
	out := make([]*export, 0, len(t.byID))
	for _, e := range t.byID {
		out = append(out, e)
	}
	t.init()
	t.free = nil
	return out
}

// brandKey is client's Brand value when it can key a map, else nil.
func brandKey(client capnp.Client) any {
	snap := client.Snapshot()
	defer snap.Release()
	v := snap.Brand().Value
	if v == nil || !reflect.TypeOf(v).Comparable() {
		return nil
	}
	return v
}

// fillCapTable writes the descriptors of ct's capabilities into payload:
// an import of this connection goes back as receiverHosted, anything
// else is exported as senderHosted. It returns the export ids sent (each
// one reference). Called with c.mu held.
func (c *Conn) fillCapTable(payload rpccp.Payload, ct *capnp.CapTable) ([]uint32, error) {
	n := ct.Len()
	if n == 0 {
		return nil, nil
	}
	list, err := payload.NewCapTable(int32(n))
	if err != nil {
		return nil, err
	}
	var sent []uint32
	for i := 0; i < n; i++ {
		d, client := list.At(i), ct.At(i)
		if !client.IsValid() {
			d.SetNone()
			continue
		}
		if id, ok := c.describe(d, client); ok {
			sent = append(sent, id)
		}
	}
	return sent, nil
}

// describe writes the descriptor of client, not null: receiverHosted for
// an import of this connection; otherwise it is exported (one more
// reference, whose id describe returns), as senderPromise while it is an
// unresolved promise (promise.go), else senderHosted. Called with c.mu
// held.
func (c *Conn) describe(d rpccp.CapDescriptor, client capnp.Client) (uint32, bool) {
	if id, ok := c.ownImport(client); ok {
		d.SetReceiverHosted(id)
		return 0, false
	}
	id := c.exports.add(client)
	if c.exportPromise(id, client) {
		d.SetSenderPromise(id)
	} else {
		d.SetSenderHosted(id)
	}
	return id, true
}

// ownImport reports whether client is a capability the peer hosts on this
// connection, and its import id.
func (c *Conn) ownImport(client capnp.Client) (uint32, bool) {
	snap := client.Snapshot()
	defer snap.Release()
	ic, ok := snap.Brand().Value.(*importClient)
	if !ok || ic.c != c {
		return 0, false
	}
	return ic.id, true
}

// releaseExports drops one reference to each id (a Return's
// releaseParamCaps, a Finish's releaseResultCaps) and returns the clients
// to release outside the lock. Called with c.mu held.
func (c *Conn) releaseExports(ids []uint32) []capnp.Client {
	var gone []capnp.Client
	for _, id := range ids {
		if cl, err := c.exports.release(id, 1); err == nil && cl.IsValid() {
			gone = append(gone, cl)
		}
	}
	return gone
}

// handleRelease is the peer's Release of references to one export.
func (c *Conn) handleRelease(m rpccp.Message) error {
	rel, err := m.Release()
	if err != nil {
		return protocolErr("unreadable release")
	}
	c.mu.Lock()
	client, err := c.exports.release(rel.Id(), rel.ReferenceCount())
	c.mu.Unlock()
	client.Release()
	return err
}

func releaseAll(clients []capnp.Client) {
	for _, cl := range clients {
		cl.Release()
	}
}
