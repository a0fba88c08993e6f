package engine_test

// A raw peer for tests of our engine as the caller: the test reads the
// messages our engine writes and answers them by hand, and a gated codec
// holds one chosen write of the engine's until the test lets it go (a
// slow write, on demand).

import (
	"sync"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/rpc/transport"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/rpc/engine"
)

// gatedCodec holds the first message matching hold in Encode: it signals
// entered, then waits for open (or Close) before writing it.
type gatedCodec struct {
	transport.Codec
	hold    func(rpccp.Message) bool
	entered chan struct{}
	gate    chan struct{}
	once    sync.Once // hold is used once
	opened  sync.Once
}

func newGatedCodec(c transport.Codec, hold func(rpccp.Message) bool) *gatedCodec {
	return &gatedCodec{Codec: c, hold: hold, entered: make(chan struct{}), gate: make(chan struct{})}
}

func (g *gatedCodec) Encode(msg *capnp.Message) error {
	if m, err := rpccp.ReadRootMessage(msg); err == nil && g.hold(m) {
		held := false
		g.once.Do(func() { held = true })
		if held {
			close(g.entered)
			<-g.gate
		}
	}
	return g.Codec.Encode(msg)
}

// open lets the held write go (once; Close opens too).
func (g *gatedCodec) open() { g.opened.Do(func() { close(g.gate) }) }

func (g *gatedCodec) Close() error {
	g.open()
	return g.Codec.Close()
}

func isFinish(m rpccp.Message) bool { return m.Which() == rpccp.Message_Which_finish }

// isPipelinedCall is a Call whose target is a promisedAnswer.
func isPipelinedCall(m rpccp.Message) bool {
	if m.Which() != rpccp.Message_Which_call {
		return false
	}
	c, err := m.Call()
	if err != nil {
		return false
	}
	tgt, err := c.Target()
	return err == nil && tgt.Which() == rpccp.MessageTarget_Which_promisedAnswer
}

// rawPeer is the far end of a pipe, read and written by the test.
type rawPeer struct {
	t     testing.TB
	codec transport.Codec
	in    chan rpccp.Message
}

func newRawPeer(t testing.TB, c transport.Codec) *rawPeer {
	p := &rawPeer{t: t, codec: c, in: make(chan rpccp.Message, 64)}
	go func() {
		defer close(p.in)
		for {
			msg, err := c.Decode()
			if err != nil {
				return
			}
			m, err := rpccp.ReadRootMessage(msg)
			if err != nil {
				return
			}
			p.in <- m
		}
	}()
	return p
}

// next is the engine's next message.
func (p *rawPeer) next() rpccp.Message {
	p.t.Helper()
	select {
	case m, ok := <-p.in:
		if !ok {
			p.t.Fatal("the engine closed the connection")
		}
		return m
	case <-time.After(safety):
		p.t.Fatal("no message from the engine")
	}
	return rpccp.Message{}
}

// expect is the engine's next message, which must be of kind w.
func (p *rawPeer) expect(w rpccp.Message_Which) rpccp.Message {
	p.t.Helper()
	m := p.next()
	if m.Which() != w {
		p.t.Fatalf("the engine sent %s, want %s", m.Which(), w)
	}
	return m
}

// questionOf is the question id a Bootstrap, Call or Finish names.
func questionOf(m rpccp.Message) uint32 {
	switch m.Which() {
	case rpccp.Message_Which_bootstrap:
		b, _ := m.Bootstrap()
		return b.QuestionId()
	case rpccp.Message_Which_call:
		c, _ := m.Call()
		return c.QuestionId()
	case rpccp.Message_Which_finish:
		f, _ := m.Finish()
		return f.QuestionId()
	case rpccp.Message_Which_return:
		r, _ := m.Return()
		return r.AnswerId()
	}
	return ^uint32(0)
}

// send writes one message built by fill.
func (p *rawPeer) send(fill func(rpccp.Message) error) {
	p.t.Helper()
	msg, seg := capnp.NewSingleSegmentMessage(nil)
	m, err := rpccp.NewRootMessage(seg)
	if err == nil {
		err = fill(m)
	}
	if err == nil {
		err = p.codec.Encode(msg)
	}
	if err != nil {
		p.t.Fatalf("peer send: %v", err)
	}
}

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

func (tg rawTarget) fill(mt rpccp.MessageTarget) error {
	if !tg.promised {
		mt.SetImportedCap(tg.id)
		return nil
	}
	pa, err := mt.NewPromisedAnswer()
	if err != nil {
		return err
	}
	pa.SetQuestionId(tg.id)
	ops, err := pa.NewTransform(int32(len(tg.fields)))
	for i, f := range tg.fields {
		ops.At(i).SetGetPointerField(f)
	}
	return err
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

// bootstrap asks for the engine's bootstrap capability as question q and
// returns its export id.
func (p *rawPeer) bootstrap(q uint32) uint32 {
	p.t.Helper()
	p.sendBootstrap(q)
	r := p.expectReturn(q)
	d, ok := resultDesc(r, 0)
	if !ok || d.Which() != rpccp.CapDescriptor_Which_senderHosted {
		p.t.Fatalf("Bootstrap %d: want a senderHosted capability, got %s", q, r.Which())
	}
	return d.SenderHosted()
}

// expectReturn is the engine's next Return (other kinds are skipped),
// which must answer question q.
func (p *rawPeer) expectReturn(q uint32) rpccp.Return {
	p.t.Helper()
	m := p.await(rpccp.Message_Which_return)
	r, _ := m.Return()
	if r.AnswerId() != q {
		p.t.Fatalf("Return for question %d, want %d", r.AnswerId(), q)
	}
	return r
}

// resultDesc is entry i of a results Return's capability table.
func resultDesc(r rpccp.Return, i int) (rpccp.CapDescriptor, bool) {
	if r.Which() != rpccp.Return_Which_results {
		return rpccp.CapDescriptor{}, false
	}
	pl, err := r.Results()
	if err != nil {
		return rpccp.CapDescriptor{}, false
	}
	caps, err := pl.CapTable()
	if err != nil || i >= caps.Len() {
		return rpccp.CapDescriptor{}, false
	}
	return caps.At(i), true
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

// await is the engine's next message of kind w; others are skipped.
func (p *rawPeer) await(w rpccp.Message_Which) rpccp.Message {
	p.t.Helper()
	for {
		if m := p.next(); m.Which() == w {
			return m
		}
	}
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

// engineConn is our engine on codec offering boot; cleanup closes it.
func engineConn(t *testing.T, codec transport.Codec, boot capnp.Client) *engine.Conn {
	t.Helper()
	c := engine.NewConn(codec, &engine.Options{BootstrapClient: boot})
	t.Cleanup(func() {
		_ = c.Close()
		waitDone(t, c.Done())
	})
	return c
}
