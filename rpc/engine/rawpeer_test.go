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

// await is the engine's next message of kind w; others are skipped.
func (p *rawPeer) await(w rpccp.Message_Which) rpccp.Message {
	p.t.Helper()
	for {
		if m := p.next(); m.Which() == w {
			return m
		}
	}
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
