package rpc

import (
	"bytes"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// FuzzDecode feeds arbitrary bytes, as the payload of one WebSocket
// message, through everything the transport does with a peer's message
// before the engine sees it: the segment table read and its size check, the
// framing check and parse, the question tracking with its budget and cap
// table check, and the tracking of an outgoing message. It
// must never panic, and a message it accepts must hold a readable root.
func FuzzDecode(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := CodecOptions{ReadLimit: 1 << 20, ConnMemory: 1 << 20, MaxCapsPerMessage: 4}.withDefaults()
		c := &Codec{opts: opts, budget: newConnBudget(opts.ConnMemory, nil, nil)}
		c.track = newTracker(&c.opts, c.budget)
		got, err := c.readFramed(bytes.NewReader(data))
		if err != nil {
			return
		}
		m, err := parseMessage(got, opts.ReadLimit)
		if err != nil {
			return
		}
		defer m.Release()
		msg, err := rpccp.ReadRootMessage(m)
		if err != nil {
			t.Fatalf("accepted a message without a readable root: %v", err)
		}
		_ = c.track.received(msg, len(got))
		_ = c.track.sent(m, len(got))
	})
}

// fuzzSeeds are well-formed messages of every kind the tracker looks at.
func fuzzSeeds(tb testing.TB) [][]byte {
	var out [][]byte
	add := func(build func(rpccp.Message) error) {
		msg, seg := capnp.NewSingleSegmentMessage(nil)
		root, err := rpccp.NewRootMessage(seg)
		if err == nil {
			err = build(root)
		}
		var data []byte
		if err == nil {
			data, err = msg.Marshal()
		}
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, data)
	}
	add(func(m rpccp.Message) error {
		b, err := m.NewBootstrap()
		b.SetQuestionId(0)
		return err
	})
	add(func(m rpccp.Message) error { return seedCall(m, 1, []uint16{0}) })
	add(func(m rpccp.Message) error { return seedCall(m, 0, nil) })
	add(func(m rpccp.Message) error {
		fin, err := m.NewFinish()
		fin.SetQuestionId(1)
		return err
	})
	add(func(m rpccp.Message) error {
		ret, err := m.NewReturn()
		if err != nil {
			return err
		}
		ret.SetAnswerId(3)
		p, err := ret.NewResults()
		if err != nil {
			return err
		}
		_, err = p.NewCapTable(2)
		return err
	})
	return out
}

func seedCall(m rpccp.Message, on uint32, path []uint16) error {
	call, err := m.NewCall()
	if err != nil {
		return err
	}
	call.SetQuestionId(2)
	call.SetInterfaceId(0x9c9171a2ddb6acfe)
	target, err := call.NewTarget()
	if err != nil {
		return err
	}
	pa, err := target.NewPromisedAnswer()
	if err != nil {
		return err
	}
	pa.SetQuestionId(on)
	ops, err := pa.NewTransform(int32(len(path)))
	if err != nil {
		return err
	}
	for i, f := range path {
		ops.At(i).SetGetPointerField(f)
	}
	params, err := call.NewParams()
	if err != nil {
		return err
	}
	_, err = params.NewCapTable(1)
	return err
}
