package rpc

import (
	"fmt"
	"sync"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// inflight counts the calls the peer has made on one connection that have
// not been answered yet. A call joins when its Call message is read
// (Decode) and leaves when our Return for it is written (Encode), or the
// Unimplemented message that bounces it; it is keyed by question id, so a
// Return for a Bootstrap question, which shares the id space, is ignored.
//
// go-capnp has no quota of its own: every Call it reads gets a goroutine
// or waits in its target's unbounded queue, holding its message. The cap
// is enforced here, in the transport, because the transport cannot answer
// a single call with an exception; it can only end the connection. That is
// the right answer anyway: a peer that pipelines thousands of calls
// without waiting for answers is misbehaving, and closing its connection
// (and only its) frees everything it held.
type inflight struct {
	max int // calls allowed in flight; <= 0: unlimited, nothing is parsed

	mu  sync.Mutex
	ids map[uint32]struct{}
}

func newInflight(max int) *inflight {
	return &inflight{max: max, ids: make(map[uint32]struct{})}
}

// received notes an incoming message and reports whether the peer is
// still within the cap.
func (f *inflight) received(m *capnp.Message) bool {
	if f.max <= 0 {
		return true
	}
	msg, err := rpccp.ReadRootMessage(m)
	if err != nil {
		return true
	}
	id, ok := callID(msg)
	if !ok {
		return true
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ids[id] = struct{}{}
	return len(f.ids) <= f.max
}

// sent notes an outgoing message: a Return, or an Unimplemented echoing a
// Call, ends that call.
func (f *inflight) sent(m *capnp.Message) {
	if f.max <= 0 {
		return
	}
	id, ok := answeredID(m)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.ids, id)
}

// callID returns the question id of a Call message.
func callID(msg rpccp.Message) (uint32, bool) {
	if msg.Which() != rpccp.Message_Which_call {
		return 0, false
	}
	call, err := msg.Call()
	return call.QuestionId(), err == nil
}

// answeredID returns the question id a Return (or an Unimplemented that
// carries a Call) answers.
func answeredID(m *capnp.Message) (uint32, bool) {
	msg, err := rpccp.ReadRootMessage(m)
	if err != nil {
		return 0, false
	}
	switch msg.Which() {
	case rpccp.Message_Which_return:
		ret, err := msg.Return()
		return ret.AnswerId(), err == nil
	case rpccp.Message_Which_unimplemented:
		inner, err := msg.Unimplemented()
		if err != nil {
			return 0, false
		}
		return callID(inner)
	}
	return 0, false
}

func reasonTooManyCalls(max int) string {
	return fmt.Sprintf("sharevat: more than %d calls in flight", max)
}
