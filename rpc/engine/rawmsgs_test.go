package engine_test

// The messages the raw peer (rawpeer_test.go) sends, built by hand.

import (
	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// sendCanceled answers question q with Return(canceled).
func (p *rawPeer) sendCanceled(q uint32) {
	p.send(func(m rpccp.Message) error {
		r, err := m.NewReturn()
		if err != nil {
			return err
		}
		r.SetAnswerId(q)
		r.SetCanceled()
		return nil
	})
}

// sendBootstrap asks the engine for its bootstrap capability as question q.
func (p *rawPeer) sendBootstrap(q uint32) {
	p.send(func(m rpccp.Message) error {
		b, err := m.NewBootstrap()
		b.SetQuestionId(q)
		return err
	})
}

// sendFinish finishes the peer's question q.
func (p *rawPeer) sendFinish(q uint32) {
	p.send(func(m rpccp.Message) error {
		f, err := m.NewFinish()
		f.SetQuestionId(q)
		return err
	})
}

// rawTarget is a Call's or Disembargo's target: an import id, or the
// capability at fields in the results of question id.
type rawTarget struct {
	promised bool
	id       uint32
	fields   []uint16
}

// sendCall calls method on tg as question q; with peerCap set, the one
// parameter (pointer 0) is the peer's own export *peerCap.
func (p *rawPeer) sendCall(q uint32, tg rawTarget, method capnp.Method, peerCap *uint32) {
	p.sendCallTo(q, tg, method, peerCap, false)
}

// sendTailCall is sendCall with sendResultsTo.yourself.
func (p *rawPeer) sendTailCall(q uint32, tg rawTarget, method capnp.Method) {
	p.sendCallTo(q, tg, method, nil, true)
}

func (p *rawPeer) sendCallTo(q uint32, tg rawTarget, method capnp.Method, peerCap *uint32, tail bool) {
	p.send(func(m rpccp.Message) error {
		c, err := m.NewCall()
		if err != nil {
			return err
		}
		if tail {
			c.SendResultsTo().SetYourself()
		}
		c.SetQuestionId(q)
		c.SetInterfaceId(method.InterfaceID)
		c.SetMethodId(method.MethodID)
		mt, err := c.NewTarget()
		if err == nil {
			err = tg.fill(mt)
		}
		if err != nil {
			return err
		}
		pl, err := c.NewParams()
		if err != nil {
			return err
		}
		st, err := capnp.NewStruct(pl.Segment(), capnp.ObjectSize{DataSize: 8, PointerCount: 1})
		if err == nil {
			err = pl.SetContent(st.ToPtr())
		}
		if err != nil || peerCap == nil {
			return err
		}
		if err := st.SetPtr(0, capnp.NewInterface(st.Segment(), 0).ToPtr()); err != nil {
			return err
		}
		caps, err := pl.NewCapTable(1)
		caps.At(0).SetSenderHosted(*peerCap)
		return err
	})
}

// sendLoopback sends Disembargo(senderLoopback id) to tg.
func (p *rawPeer) sendLoopback(tg rawTarget, id uint32) {
	p.send(func(m rpccp.Message) error {
		d, err := m.NewDisembargo()
		if err != nil {
			return err
		}
		mt, err := d.NewTarget()
		if err == nil {
			err = tg.fill(mt)
		}
		d.Context().SetSenderLoopback(id)
		return err
	})
}

// sendReturnCap answers question q with results whose one pointer is the
// peer's export id (senderHosted).
func (p *rawPeer) sendReturnCap(q, id uint32) {
	p.send(func(m rpccp.Message) error {
		r, err := m.NewReturn()
		if err != nil {
			return err
		}
		r.SetAnswerId(q)
		pl, err := r.NewResults()
		if err != nil {
			return err
		}
		if err := pl.SetContent(capnp.NewInterface(pl.Segment(), 0).ToPtr()); err != nil {
			return err
		}
		caps, err := pl.NewCapTable(1)
		caps.At(0).SetSenderHosted(id)
		return err
	})
}

// sendTakeFrom answers question q with the results of the peer's tail
// call other (takeFromOtherQuestion).
func (p *rawPeer) sendTakeFrom(q, other uint32) {
	p.send(func(m rpccp.Message) error {
		r, err := m.NewReturn()
		r.SetAnswerId(q)
		r.SetTakeFromOtherQuestion(other)
		return err
	})
}

// sendReceiverLoopback reflects the engine's Disembargo id.
func (p *rawPeer) sendReceiverLoopback(tg rawTarget, id uint32) {
	p.send(func(m rpccp.Message) error {
		d, err := m.NewDisembargo()
		if err != nil {
			return err
		}
		mt, err := d.NewTarget()
		if err == nil {
			err = tg.fill(mt)
		}
		d.Context().SetReceiverLoopback(id)
		return err
	})
}
