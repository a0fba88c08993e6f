package engine_test

// FuzzEngineMessages feeds random and mutated RPC messages to an engine
// through the pipe, after a real Bootstrap: the engine must not panic,
// and afterwards it either still answers a Bootstrap or has ended the
// connection.

import (
	"bytes"
	"os"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"sharevat/schema"
)

// fuzzMaxMessages bounds the messages one input sends.
const fuzzMaxMessages = 32

// probeQuestion is the question id of the final Bootstrap, far from the
// ids the seeds use.
const probeQuestion = 1 << 30

// fuzzEngine is the engine the fuzz target drives: the one named by
// ENGINETEST_FUZZ_ENGINE, else the last in engines (ours, once present).
func fuzzEngine(f *testing.F) engineUnderTest {
	name := os.Getenv("ENGINETEST_FUZZ_ENGINE")
	if name == "" {
		return engines[len(engines)-1]
	}
	for _, e := range engines {
		if e.name == name {
			return e
		}
	}
	f.Fatalf("ENGINETEST_FUZZ_ENGINE=%q: no such engine", name)
	return engineUnderTest{}
}

func FuzzEngineMessages(f *testing.F) {
	e := fuzzEngine(f)
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := start(t, e)
		p.bootstrap() // question 0, export 0 for the seeds
		dec := capnp.NewDecoder(bytes.NewReader(data))
		dec.MaxMessageSize = 1 << 16
		for range fuzzMaxMessages {
			msg, err := dec.Decode()
			if err != nil {
				break
			}
			if err := p.codec.Encode(msg); err != nil {
				break // the engine ended the connection, or msg does not marshal
			}
		}
		// Serves or aborts: a Bootstrap is answered by the engine itself,
		// whatever the bootstrap capability is busy with.
		if err := p.trySend(bootstrapMsg(probeQuestion)); err != nil {
			return
		}
		if o := p.refused(probeQuestion, true); !o.closed && !o.results {
			t.Fatalf("after the input, the engine neither served nor aborted: %s\n%s", o, p.history())
		}
	})
}

// fuzzSeeds are valid and nearly valid message sequences, each a stream
// of framed messages, addressed to the export and question 0 a fresh
// connection has after its Bootstrap.
func fuzzSeeds(f *testing.F) [][]byte {
	seq := func(bs ...builder) []byte {
		var out []byte
		for _, b := range bs {
			msg, seg := capnp.NewSingleSegmentMessage(nil)
			m, err := rpccp.NewRootMessage(seg)
			if err != nil {
				f.Fatal(err)
			}
			if err := b(m); err != nil {
				f.Fatal(err)
			}
			raw, err := msg.Marshal()
			if err != nil {
				f.Fatal(err)
			}
			out = append(out, raw...)
		}
		return out
	}
	read := func(q uint32, to target) builder {
		return callMsg(call{q: q, to: to, iface: schema.Reader_TypeID, method: readerRead, params: readParams(uint64(q))})
	}
	sub := func(q uint32, caps []capDesc) builder {
		return callMsg(call{q: q, to: imported(0), iface: schema.Reader_TypeID, method: readerSubscribe, params: subscribeParams(0, 0), caps: caps})
	}
	unknownTag := func(m rpccp.Message) error {
		capnp.Struct(m).SetUint16(0, 99)
		return nil
	}
	return [][]byte{
		seq(read(1, imported(0)), finishMsg(1, true)),
		seq(read(1, promised(0)), finishMsg(0, false), read(2, imported(0))),
		seq(releaseMsg(0, 1), read(1, imported(0))),
		seq(finishMsg(0, true), releaseMsg(0, 3)),
		seq(sub(1, []capDesc{{id: 5}}), returnMsg(0, nil), finishMsg(1, true)),
		seq(sub(1, nil), read(2, imported(7))),
		seq(disembargoMsg(imported(0), 1)),
		seq(unknownTag, read(1, imported(0))),
		seq(returnMsg(9, nil), abortMsg("fuzz")),
		seq(bootstrapMsg(1), bootstrapMsg(1)),
	}
}
