package hostile

import (
	"fmt"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/schema"
)

// Method ordinals of schema/sharevat.capnp that the vectors call.
const (
	VaultRestore   uint16 = 0
	VaultPing      uint16 = 3
	ShareReader    uint16 = 3
	ReaderRead     uint16 = 0
	ReaderSub      uint16 = 2
	UnknownMethod  uint16 = 0x7fff // no interface of the schema has it
	UnknownIfaceID uint64 = 0xdead_beef_f00d_cafe
)

// Target is what a Call is addressed to: an imported capability, or a
// field of a question's (promised) answer.
type Target struct {
	promised bool
	id       uint32   // import id, or question id when promised
	fields   []uint16 // getPointerField ops, when promised
}

// ImportedCap targets the capability the server exported as id.
func ImportedCap(id uint32) Target { return Target{id: id} }

// PromisedAnswer targets question qid's answer, followed through the
// pointer fields given (none: the answer itself, as for a Bootstrap).
func PromisedAnswer(qid uint32, fields ...uint16) Target {
	return Target{promised: true, id: qid, fields: fields}
}

// Params builds a call's parameter struct in seg.
type Params func(seg *capnp.Segment) (capnp.Ptr, error)

// CapKind is the kind of one capability descriptor in a call's cap table.
type CapKind int

// Kinds of capability descriptors.
const (
	SenderHosted   CapKind = iota // a capability we claim to export as ID
	SenderPromise                 // a promise we claim to export as ID
	ReceiverHosted                // the server's own export ID
)

// Cap is one capability descriptor of a call's cap table.
type Cap struct {
	Kind CapKind
	ID   uint32
}

// CallSpec describes one Call message.
type CallSpec struct {
	QuestionID  uint32
	Target      Target
	InterfaceID uint64
	MethodID    uint16
	Params      Params // nil: an empty struct
	Caps        []Cap  // the params' cap table
	// NCaps, when larger than len(Caps), adds senderHosted descriptors
	// with ids 1, 2, … up to NCaps in all: a cap table bomb without a
	// slice of that size.
	NCaps int
}

// Call serializes a Call message.
func Call(spec CallSpec) ([]byte, error) {
	msg, seg := capnp.NewSingleSegmentMessage(nil)
	m, err := rpccp.NewRootMessage(seg)
	if err != nil {
		return nil, err
	}
	call, err := m.NewCall()
	if err != nil {
		return nil, err
	}
	call.SetQuestionId(spec.QuestionID)
	call.SetInterfaceId(spec.InterfaceID)
	call.SetMethodId(spec.MethodID)
	target, err := call.NewTarget()
	if err != nil {
		return nil, err
	}
	if err := setTarget(target, spec.Target); err != nil {
		return nil, err
	}
	payload, err := call.NewParams()
	if err != nil {
		return nil, err
	}
	var content capnp.Ptr
	if spec.Params != nil {
		content, err = spec.Params(seg)
	} else {
		var s capnp.Struct
		s, err = capnp.NewStruct(seg, capnp.ObjectSize{})
		content = s.ToPtr()
	}
	if err != nil {
		return nil, fmt.Errorf("hostile: params: %w", err)
	}
	if err := payload.SetContent(content); err != nil {
		return nil, err
	}
	if n := max(len(spec.Caps), spec.NCaps); n > 0 {
		table, err := payload.NewCapTable(int32(n))
		if err != nil {
			return nil, err
		}
		for i := range n {
			c := Cap{Kind: SenderHosted, ID: uint32(i + 1)}
			if i < len(spec.Caps) {
				c = spec.Caps[i]
			}
			setCap(table.At(i), c)
		}
	}
	return msg.Marshal()
}

func setTarget(t rpccp.MessageTarget, spec Target) error {
	if !spec.promised {
		t.SetImportedCap(spec.id)
		return nil
	}
	pa, err := t.NewPromisedAnswer()
	if err != nil {
		return err
	}
	pa.SetQuestionId(spec.id)
	if len(spec.fields) == 0 {
		return nil
	}
	ops, err := pa.NewTransform(int32(len(spec.fields)))
	if err != nil {
		return err
	}
	for i, f := range spec.fields {
		ops.At(i).SetGetPointerField(f)
	}
	return nil
}

func setCap(cd rpccp.CapDescriptor, c Cap) {
	switch c.Kind {
	case SenderPromise:
		cd.SetSenderPromise(c.ID)
	case ReceiverHosted:
		cd.SetReceiverHosted(c.ID)
	default:
		cd.SetSenderHosted(c.ID)
	}
}

// Bootstrap serializes a Bootstrap message with question id qid.
func Bootstrap(qid uint32) []byte {
	return build(func(m rpccp.Message) error {
		b, err := m.NewBootstrap()
		if err == nil {
			b.SetQuestionId(qid)
		}
		return err
	})
}

// Finish serializes a Finish for question qid.
func Finish(qid uint32, releaseResultCaps bool) []byte {
	return build(func(m rpccp.Message) error {
		f, err := m.NewFinish()
		if err == nil {
			f.SetQuestionId(qid)
			f.SetReleaseResultCaps(releaseResultCaps)
		}
		return err
	})
}

// Release serializes a Release of count references to import id.
func Release(id, count uint32) []byte {
	return build(func(m rpccp.Message) error {
		r, err := m.NewRelease()
		if err == nil {
			r.SetId(id)
			r.SetReferenceCount(count)
		}
		return err
	})
}

// build serializes a small message; go-capnp fails to allocate one only
// on a programming error, hence the panic.
func build(fill func(rpccp.Message) error) []byte {
	msg, seg := capnp.NewSingleSegmentMessage(nil)
	m, err := rpccp.NewRootMessage(seg)
	if err == nil {
		err = fill(m)
	}
	var data []byte
	if err == nil {
		data, err = msg.Marshal()
	}
	if err != nil {
		panic(fmt.Sprintf("hostile: build message: %v", err))
	}
	return data
}

// PingCall is Vault.ping, question qid, on target.
func PingCall(qid uint32, target Target) []byte {
	return mustCall(CallSpec{QuestionID: qid, Target: target, InterfaceID: schema.Vault_TypeID, MethodID: VaultPing})
}

// RestoreCall is Vault.restore(token), question qid, on the Vault
// bootstrapped by question boot.
func RestoreCall(qid, boot uint32, token string) []byte {
	return mustCall(CallSpec{
		QuestionID: qid, Target: PromisedAnswer(boot),
		InterfaceID: schema.Vault_TypeID, MethodID: VaultRestore,
		Params: func(seg *capnp.Segment) (capnp.Ptr, error) {
			p, err := schema.NewVault_restore_Params(seg)
			if err == nil {
				err = p.SetToken(token)
			}
			return p.ToPtr(), err
		},
	})
}

// ReaderCall is Share.reader(), question qid, on the share field
// (pointer 0) of restore question restore's answer.
func ReaderCall(qid, restore uint32) []byte {
	return mustCall(CallSpec{QuestionID: qid, Target: PromisedAnswer(restore, 0), InterfaceID: schema.Share_TypeID, MethodID: ShareReader})
}

// ReadCall is Reader.read(from, limit), question qid, on the reader field
// of question reader's answer.
func ReadCall(qid, reader uint32, from uint64, limit uint32) []byte {
	return mustCall(CallSpec{
		QuestionID: qid, Target: PromisedAnswer(reader, 0),
		InterfaceID: schema.Reader_TypeID, MethodID: ReaderRead,
		Params: func(seg *capnp.Segment) (capnp.Ptr, error) {
			p, err := schema.NewReader_read_Params(seg)
			p.SetFromCursor(from)
			p.SetLimit(limit)
			return p.ToPtr(), err
		},
	})
}

// SubscribeCall is Reader.subscribe(from, sink), question qid, on the
// reader field of question reader's answer, with a sink we claim to
// export as sinkID: the server's pushes arrive as Calls on it.
func SubscribeCall(qid, reader uint32, from uint64, sinkID uint32) []byte {
	return mustCall(CallSpec{
		QuestionID: qid, Target: PromisedAnswer(reader, 0),
		InterfaceID: schema.Reader_TypeID, MethodID: ReaderSub,
		Params: func(seg *capnp.Segment) (capnp.Ptr, error) {
			p, err := schema.NewReader_subscribe_Params(seg)
			if err != nil {
				return capnp.Ptr{}, err
			}
			p.SetFromCursor(from)
			return p.ToPtr(), capnp.Struct(p).SetPtr(0, capnp.NewInterface(seg, 0).ToPtr())
		},
		Caps: []Cap{{Kind: SenderHosted, ID: sinkID}},
	})
}

func mustCall(spec CallSpec) []byte {
	data, err := Call(spec)
	if err != nil {
		panic(fmt.Sprintf("hostile: build call: %v", err))
	}
	return data
}

// Incoming is a decoded message from the server.
type Incoming struct {
	Which rpccp.Message_Which
	// ID is the answer id of a Return, the question id of a Call or
	// Bootstrap, the import id of a Release.
	ID uint32
	// Exception is a Return's exception reason, or an Abort's.
	Exception string
	// Imports are the export ids of the capabilities in a Return's
	// results (senderHosted and senderPromise descriptors): our imports.
	Imports []uint32
	// Target of a Call: the import id it is addressed to (our export).
	Target      uint32
	InterfaceID uint64
	MethodID    uint16
}

// IsException reports whether m is a Return carrying an exception.
func (m Incoming) IsException() bool {
	return m.Which == rpccp.Message_Which_return && m.Exception != ""
}

// Decode parses one message the server sent.
func Decode(data []byte) (Incoming, error) {
	msg, err := capnp.Unmarshal(data)
	if err != nil {
		return Incoming{}, err
	}
	m, err := rpccp.ReadRootMessage(msg)
	if err != nil {
		return Incoming{}, err
	}
	in := Incoming{Which: m.Which()}
	switch in.Which {
	case rpccp.Message_Which_return:
		err = decodeReturn(m, &in)
	case rpccp.Message_Which_abort:
		var e rpccp.Exception
		if e, err = m.Abort(); err == nil {
			in.Exception, err = e.Reason()
		}
	case rpccp.Message_Which_call:
		var c rpccp.Call
		if c, err = m.Call(); err == nil {
			in.ID, in.InterfaceID, in.MethodID = c.QuestionId(), c.InterfaceId(), c.MethodId()
			if t, terr := c.Target(); terr == nil && t.Which() == rpccp.MessageTarget_Which_importedCap {
				in.Target = t.ImportedCap()
			}
		}
	case rpccp.Message_Which_bootstrap:
		var b rpccp.Bootstrap
		if b, err = m.Bootstrap(); err == nil {
			in.ID = b.QuestionId()
		}
	case rpccp.Message_Which_finish:
		var f rpccp.Finish
		if f, err = m.Finish(); err == nil {
			in.ID = f.QuestionId()
		}
	case rpccp.Message_Which_release:
		var r rpccp.Release
		if r, err = m.Release(); err == nil {
			in.ID = r.Id()
		}
	}
	return in, err
}

func decodeReturn(m rpccp.Message, in *Incoming) error {
	ret, err := m.Return()
	if err != nil {
		return err
	}
	in.ID = ret.AnswerId()
	switch ret.Which() {
	case rpccp.Return_Which_exception:
		e, err := ret.Exception()
		if err != nil {
			return err
		}
		in.Exception, err = e.Reason()
		if in.Exception == "" {
			in.Exception = e.Type().String()
		}
		return err
	case rpccp.Return_Which_results:
		p, err := ret.Results()
		if err != nil {
			return err
		}
		table, err := p.CapTable()
		if err != nil {
			return err
		}
		for i := range table.Len() {
			cd := table.At(i)
			switch cd.Which() {
			case rpccp.CapDescriptor_Which_senderHosted:
				in.Imports = append(in.Imports, cd.SenderHosted())
			case rpccp.CapDescriptor_Which_senderPromise:
				in.Imports = append(in.Imports, cd.SenderPromise())
			}
		}
	case rpccp.Return_Which_canceled:
		in.Exception = "canceled"
	}
	return nil
}
