package engine

// FuzzEngineMessages feeds random and mutated RPC messages to an engine
// through the pipe, after a real Bootstrap: the engine must not panic,
// and afterwards it either still answers a Bootstrap or has ended the
// connection.

import (
	"encoding/binary"
	"os"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/schema"
)

// fuzzMaxMessages bounds the messages one input sends.
const fuzzMaxMessages = 32

// probeQuestion is the question id of the final Bootstrap, far from the
// ids the seeds use.
const probeQuestion = 1 << 30

// fuzzEngine is the engine the fuzz target drives: the one named by
// ENGINETEST_FUZZ_ENGINE (gocapnp or sharevat), else the last in engines
// (ours, "sharevat").
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
		for _, msg := range fuzzMessages(data) {
			if err := p.codec.Encode(msg); err != nil {
				break // the engine ended the connection, or msg does not marshal
			}
		}
		// Serves or aborts: a Bootstrap is answered by the engine itself,
		// whatever the bootstrap capability is busy with.
		if err := p.trySend(bootstrapMsg(probeQuestion)); err != nil {
			return
		}
		// Any answer counts: the input may itself have used the probe's
		// id (a Call the engine answered with an exception).
		if o := p.refused(probeQuestion, true); !o.closed && !o.results && o.exception == "" {
			t.Fatalf("after the input, the engine neither served nor aborted: %s\n%s", o, p.history())
		}
	})
}

// fuzzMessages cuts data into at most fuzzMaxMessages single-segment
// messages: each is one byte w (its size in words) and w words, the last
// one padded with zeros. Whatever the bytes, each is a message the pipe
// carries, so the fuzzer's mutations reach the engine's reading of
// pointers and unions rather than the framing.
func fuzzMessages(data []byte) []*capnp.Message {
	var out []*capnp.Message
	for len(data) > 0 && len(out) < fuzzMaxMessages {
		w := int(data[0])
		data = data[1:]
		w = max(w, 1)
		framed := make([]byte, 8+w*8) // segment table: one segment of w words
		binary.LittleEndian.PutUint32(framed[4:], uint32(w))
		data = data[copy(framed[8:], data):]
		msg, err := capnp.Unmarshal(framed)
		if err != nil {
			continue
		}
		out = append(out, msg)
	}
	return out
}

// fuzzSeeds are valid and nearly valid message sequences, each a stream
// of framed messages, addressed to the export and question 0 a fresh
// connection has after its Bootstrap.
func fuzzSeeds(f *testing.F) [][]byte {
	seq := func(bs ...builder) []byte {
		var out []byte
		for _, b := range bs {
			_, seg := capnp.NewSingleSegmentMessage(nil)
			m, err := rpccp.NewRootMessage(seg)
			if err != nil {
				f.Fatal(err)
			}
			if err := b(m); err != nil {
				f.Fatal(err)
			}
			words := seg.Data()
			if len(words) > 255*8 {
				f.Fatalf("seed message of %d bytes: too long for the format", len(words))
			}
			out = append(out, byte(len(words)/8))
			out = append(out, words...)
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
