package engine

// Builders of the messages the peer sends, one per rpc.capnp message kind
// the suite uses, and readers of the caps the engine answers with.

import (
	"fmt"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/schema"
)

// Method ordinals of schema/sharevat.capnp the suite calls.
const (
	readerRead       uint16 = 0 // Reader.read(fromCursor, limit) -> (ops, head)
	readerSubscribe  uint16 = 2 // Reader.subscribe(fromCursor, sink) -> (subscription)
	subscriptionCurs uint16 = 0 // Subscription.cursor() -> (cursor)
	opSinkEnd        uint16 = 1 // OpSink.end(code, detail) -> ()
)

// target is what a Call or Disembargo is addressed to.
type target struct {
	promised bool
	id       uint32   // import id (the engine's export), or question id
	fields   []uint16 // getPointerField ops, when promised
}

// imported targets the capability the engine exported as id.
func imported(id uint32) target { return target{id: id} }

// promised targets question q's answer, followed through fields.
func promised(q uint32, fields ...uint16) target {
	return target{promised: true, id: q, fields: fields}
}

func (tg target) fill(mt rpccp.MessageTarget) error {
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
	if err != nil {
		return err
	}
	for i, f := range tg.fields {
		ops.At(i).SetGetPointerField(f)
	}
	return nil
}

// capDesc is one descriptor of a payload's cap table.
type capDesc struct {
	receiverHosted bool   // the engine's own export id, else senderHosted
	id             uint32 // the export id
}

// call describes one Call message.
type call struct {
	q      uint32
	to     target
	iface  uint64
	method uint16
	// params fills the params struct (nil: an empty struct).
	params func(s capnp.Struct) error
	caps   []capDesc
}

// callMsg builds a Call; the params struct is 2 data words and 2
// pointers, enough for every method the suite calls.
func callMsg(c call) builder {
	return func(m rpccp.Message) error {
		cl, err := m.NewCall()
		if err != nil {
			return err
		}
		cl.SetQuestionId(c.q)
		cl.SetInterfaceId(c.iface)
		cl.SetMethodId(c.method)
		tg, err := cl.NewTarget()
		if err != nil {
			return err
		}
		if err := c.to.fill(tg); err != nil {
			return err
		}
		pl, err := cl.NewParams()
		if err != nil {
			return err
		}
		return fillPayload(pl, c.params, c.caps)
	}
}

// fillPayload sets a payload's content to a new struct and its cap table.
func fillPayload(pl rpccp.Payload, params func(capnp.Struct) error, caps []capDesc) error {
	st, err := capnp.NewStruct(pl.Segment(), capnp.ObjectSize{DataSize: 16, PointerCount: 2})
	if err != nil {
		return err
	}
	if params != nil {
		if err := params(st); err != nil {
			return err
		}
	}
	if err := pl.SetContent(st.ToPtr()); err != nil {
		return err
	}
	ct, err := pl.NewCapTable(int32(len(caps)))
	if err != nil {
		return err
	}
	for i, c := range caps {
		if c.receiverHosted {
			ct.At(i).SetReceiverHosted(c.id)
		} else {
			ct.At(i).SetSenderHosted(c.id)
		}
	}
	return nil
}

// readParams are Reader.read's params: fromCursor at data word 0.
func readParams(fromCursor uint64) func(capnp.Struct) error {
	return func(s capnp.Struct) error {
		s.SetUint64(0, fromCursor)
		return nil
	}
}

// subscribeParams are Reader.subscribe's params; sinkCap >= 0 puts cap
// table index sinkCap in the sink field (pointer 0).
func subscribeParams(fromCursor uint64, sinkCap int) func(capnp.Struct) error {
	return func(s capnp.Struct) error {
		s.SetUint64(0, fromCursor)
		if sinkCap < 0 {
			return nil
		}
		return s.SetPtr(0, capnp.NewInterface(s.Segment(), capnp.CapabilityID(sinkCap)).ToPtr())
	}
}

// bootstrapMsg asks question q for the bootstrap capability.
func bootstrapMsg(q uint32) builder {
	return func(m rpccp.Message) error {
		b, err := m.NewBootstrap()
		if err != nil {
			return err
		}
		b.SetQuestionId(q)
		return nil
	}
}

// finishMsg ends question q.
func finishMsg(q uint32, releaseResultCaps bool) builder {
	return func(m rpccp.Message) error {
		f, err := m.NewFinish()
		if err != nil {
			return err
		}
		f.SetQuestionId(q)
		f.SetReleaseResultCaps(releaseResultCaps)
		return nil
	}
}

// releaseMsg drops count references to the engine's export id.
func releaseMsg(id, count uint32) builder {
	return func(m rpccp.Message) error {
		r, err := m.NewRelease()
		if err != nil {
			return err
		}
		r.SetId(id)
		r.SetReferenceCount(count)
		return nil
	}
}

// abortMsg ends the connection with reason.
func abortMsg(reason string) builder {
	return func(m rpccp.Message) error {
		e, err := m.NewAbort()
		if err != nil {
			return err
		}
		e.SetType(rpccp.Exception_Type_failed)
		return e.SetReason(reason)
	}
}

// returnMsg answers the engine's question a with an empty result struct
// (fill, when not nil, fills it) and no caps.
func returnMsg(a uint32, fill func(capnp.Struct) error) builder {
	return func(m rpccp.Message) error {
		r, err := m.NewReturn()
		if err != nil {
			return err
		}
		r.SetAnswerId(a)
		pl, err := r.NewResults()
		if err != nil {
			return err
		}
		return fillPayload(pl, fill, nil)
	}
}

// disembargoMsg sends a senderLoopback Disembargo to tg.
func disembargoMsg(tg target, embargoID uint32) builder {
	return func(m rpccp.Message) error {
		d, err := m.NewDisembargo()
		if err != nil {
			return err
		}
		mt, err := d.NewTarget()
		if err != nil {
			return err
		}
		if err := tg.fill(mt); err != nil {
			return err
		}
		d.Context().SetSenderLoopback(embargoID)
		return nil
	}
}

// resultCap returns the export id of the capability a Return's result
// struct holds in pointer field, or of the content itself when field < 0
// (a Bootstrap's answer): the descriptor must be senderHosted (the engine
// exports it; the capabilities of these tests are all local to it).
func resultCap(r rpccp.Return, field int) (uint32, error) {
	if r.Which() != rpccp.Return_Which_results {
		if r.Which() == rpccp.Return_Which_exception {
			return 0, fmt.Errorf("return is an exception: %s", must(must(r.Exception()).Reason()))
		}
		return 0, fmt.Errorf("return is %s, not results", r.Which())
	}
	pl := must(r.Results())
	ptr := must(pl.Content())
	if field >= 0 {
		ptr = must(ptr.Struct().Ptr(uint16(field)))
	}
	if !ptr.Interface().IsValid() {
		return 0, fmt.Errorf("result holds no capability")
	}
	idx := int(ptr.Interface().Capability())
	ct := must(pl.CapTable())
	if idx >= ct.Len() {
		return 0, fmt.Errorf("cap index %d out of the cap table's %d", idx, ct.Len())
	}
	d := ct.At(idx)
	if d.Which() != rpccp.CapDescriptor_Which_senderHosted {
		return 0, fmt.Errorf("cap descriptor is %s, want senderHosted", d.Which())
	}
	return d.SenderHosted(), nil
}

// resultStruct is the content struct of a results Return (zero when not).
func resultStruct(r rpccp.Return) capnp.Struct {
	if r.Which() != rpccp.Return_Which_results {
		return capnp.Struct{}
	}
	return must(must(r.Results()).Content()).Struct()
}

// bootstrap asks for the bootstrap capability and returns the question id
// and the export id it was answered with.
func (p *peer) bootstrap() (q, export uint32) {
	p.t.Helper()
	q = p.question()
	p.send(bootstrapMsg(q))
	id, err := resultCap(p.awaitReturn(q), -1)
	if err != nil {
		p.t.Fatalf("bootstrap: %v\n%s", err, p.history())
	}
	return q, id
}

// read calls Reader.read(fromCursor) on tg and returns its question id.
func (p *peer) read(tg target, fromCursor uint64) uint32 {
	p.t.Helper()
	q := p.question()
	p.send(callMsg(call{q: q, to: tg, iface: schema.Reader_TypeID, method: readerRead, params: readParams(fromCursor)}))
	return q
}

// readHead is the head of a Reader.read Return (the bootServer answers
// head = fromCursor), or an error when it is not results.
func readHead(r rpccp.Return) (uint64, error) {
	if r.Which() != rpccp.Return_Which_results {
		return 0, fmt.Errorf("read answered %s", describeReturn(r))
	}
	return schema.Reader_read_Results(resultStruct(r)).Head(), nil
}

func describeReturn(r rpccp.Return) string {
	if r.Which() == rpccp.Return_Which_exception {
		return "exception: " + must(must(r.Exception()).Reason())
	}
	return r.Which().String()
}

// stillServes checks that a read on export is answered.
func (p *peer) stillServes(export uint32) {
	p.t.Helper()
	if h, err := readHead(p.awaitReturn(p.read(imported(export), 4242))); err != nil || h != 4242 {
		p.t.Fatalf("the engine stopped serving: head %d, %v\n%s", h, err, p.history())
	}
}
