package engine

// The connection ending while the engine is writing: every write that
// fails after the codec was closed must not close it again (a Codec's
// Close need not be idempotent: transport.NewPipe's panics the second
// time, killing the process).

import "testing"

// TestHostileAbortWhileAnswering: the peer aborts while the engine's
// server goroutines are writing the Returns of many calls.
func TestHostileAbortWhileAnswering(t *testing.T) {
	const rounds, calls = 30, 200
	forEachEngine(t, func(t *testing.T, e engineUnderTest) {
		// rpc.capnp, Message.abort: the receiver of an Abort ends the
		// connection; Returns it still had to write are dropped.
		deviation(t, e, "codec-closed-once")
		for range rounds {
			p := start(t, e)
			_, export := p.bootstrap()
			for i := range calls {
				p.read(imported(export), uint64(i))
			}
			p.send(abortMsg("the peer leaves mid-flight"))
			p.awaitDone()
		}
	})
}
