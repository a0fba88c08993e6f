package engine

import (
	"context"
	"strconv"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// importClient is the hook of a capability the peer exported to us
// (senderHosted or senderPromise), one per import id while any client
// holds it, so that two descriptors of one export give clients that are
// IsSame. refs counts the descriptors received for this hook; its
// Shutdown, when the last capnp.Client on it is released, sends
// Release(id, refs). Calls go to the import id; a promise keeps being
// called by its id after it resolves (the peer forwards), so no embargo
// is needed on our side.
type importClient struct {
	c    *Conn
	id   uint32
	weak capnp.WeakClient // finds the hook again for the next descriptor

	refs uint32 // guarded by c.mu
}

var _ capnp.ClientHook = (*importClient)(nil)

// Send builds a Call to the import and returns its answer.
func (ic *importClient) Send(ctx context.Context, s capnp.Send) (*capnp.Answer, capnp.ReleaseFunc) {
	return ic.c.sendCall(ctx, dest{id: ic.id}, s)
}

// Recv forwards a call we received (or a local caller's) to the peer.
func (ic *importClient) Recv(ctx context.Context, r capnp.Recv) capnp.PipelineCaller {
	return ic.c.forward(ctx, dest{id: ic.id}, r)
}

// Brand identifies the hook, so that sending it back becomes receiverHosted.
func (ic *importClient) Brand() capnp.Brand { return capnp.Brand{Value: ic} }

// Shutdown releases our references to the peer's capability. A
// descriptor for the id received meanwhile found the hook gone (its weak
// reference fails) and made a new one, which counts its own references.
func (ic *importClient) Shutdown() {
	c := ic.c
	c.liveImports.Add(-1)
	c.mu.Lock()
	n := ic.refs
	ic.refs = 0
	if c.imports[ic.id] == ic {
		delete(c.imports, ic.id)
	}
	c.mu.Unlock()
	c.sendRelease(ic.id, n)
}

func (ic *importClient) String() string { return "import " + strconv.FormatUint(uint64(ic.id), 10) }

// sendRelease tells the peer we dropped n references to its export id.
func (c *Conn) sendRelease(id, n uint32) {
	if c.isDead() {
		return
	}
	msg, root := newMessage()
	rel, err := root.NewRelease()
	if err != nil {
		msg.Release()
		return
	}
	rel.SetId(id)
	rel.SetReferenceCount(n)
	_ = c.send(msg)
}

// importCaps turns a received capability table into clients, one
// reference each. Called with c.mu held. On error, the clients made so
// far are returned too, for the caller to release.
func (c *Conn) importCaps(list rpccp.CapDescriptor_List) ([]capnp.Client, error) {
	if list.Len() == 0 {
		return nil, nil
	}
	clients := make([]capnp.Client, 0, list.Len())
	for i := 0; i < list.Len(); i++ {
		cl, err := c.importCap(list.At(i))
		if err != nil {
			return clients, err
		}
		clients = append(clients, cl)
	}
	return clients, nil
}

// importCap turns one descriptor into a client. Called with c.mu held.
func (c *Conn) importCap(d rpccp.CapDescriptor) (capnp.Client, error) {
	switch d.Which() {
	case rpccp.CapDescriptor_Which_none:
		return capnp.Client{}, nil
	case rpccp.CapDescriptor_Which_senderHosted:
		return c.newImport(d.SenderHosted()), nil
	case rpccp.CapDescriptor_Which_senderPromise:
		return c.newImport(d.SenderPromise()), nil
	case rpccp.CapDescriptor_Which_receiverHosted:
		e := c.exports.byID[d.ReceiverHosted()]
		if e == nil {
			return capnp.Client{}, protocolErr("receiverHosted names an unknown export")
		}
		return e.client.AddRef(), nil
	case rpccp.CapDescriptor_Which_receiverAnswer:
		pa, err := d.ReceiverAnswer()
		if err != nil {
			return capnp.Client{}, protocolErr("unreadable receiverAnswer")
		}
		return c.answerCap(pa)
	case rpccp.CapDescriptor_Which_thirdPartyHosted:
		tp, err := d.ThirdPartyHosted()
		if err != nil {
			return capnp.Client{}, protocolErr("unreadable thirdPartyHosted")
		}
		// Level 1: no three-party handoff; use the vine, as the spec allows.
		return c.newImport(tp.VineId()), nil
	default:
		return capnp.Client{}, protocolErr("unknown capability descriptor")
	}
}

// answerCap is a capability in the results of one of the peer's
// questions to us (receiverAnswer): the capability itself once the
// answer has its results, otherwise a promise fulfilled when it has.
// Called with c.mu held.
func (c *Conn) answerCap(pa rpccp.PromisedAnswer) (capnp.Client, error) {
	a := c.answers[pa.QuestionId()]
	if a == nil {
		return capnp.Client{}, protocolErr("receiverAnswer names an unknown question")
	}
	ops, err := readTransform(pa)
	if err != nil {
		return capnp.Client{}, err
	}
	if a.resolved {
		cl, err := a.capAt(ops)
		return cl.AddRef(), err
	}
	for _, w := range a.waiters {
		if sameOps(w.ops, ops) {
			return w.client.AddRef(), nil
		}
	}
	if len(a.waiters) >= maxAwaited {
		return capnp.Client{}, protocolErr("too many capabilities awaited on one question")
	}
	p, res := capnp.NewLocalPromise[capnp.Client]()
	a.waiters = append(a.waiters, waiter{ops: ops, res: res, client: p})
	return p.AddRef(), nil
}

// newImport is a client on the peer's export id, counting one more
// reference: a new reference to the id's live hook if there is one.
// Called with c.mu held.
func (c *Conn) newImport(id uint32) capnp.Client {
	if ic := c.imports[id]; ic != nil {
		if cl, ok := ic.weak.AddRef(); ok {
			ic.refs++
			return cl
		}
	}
	ic := &importClient{c: c, id: id, refs: 1}
	cl := capnp.NewClient(ic)
	ic.weak = cl.WeakRef()
	c.imports[id] = ic
	c.liveImports.Add(1)
	return cl
}
