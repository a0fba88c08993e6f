package rpc

import (
	"fmt"
	"sync"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
	"github.com/gorilla/websocket"
)

// answerOverhead is what the engine keeps for one answer besides the
// messages themselves (its answer entry and result table, and the call's
// state while it runs); a bound, not a measurement of rpc/engine.
const answerOverhead = 3 << 10

// tracker follows the questions on one connection, in both directions,
// and counts what they cost against the connection's budget:
//
//   - the peer's questions (Bootstrap and Call): a call counts against
//     MaxInflightCalls from the moment it is read until our Return is
//     written; its message and answerOverhead count against the budget
//     until then, and the Return (which the engine keeps for pipelining)
//     plus answerOverhead from then until the peer's Finish;
//   - our own calls to the peer (subscription pushes): their message
//     counts until the peer's Return.
//
// It also vets each incoming message before the engine sees it: at most
// MaxCapsPerMessage capability descriptors. Everything here is the
// transport's view; it cannot answer a call with an exception, so a
// violation ends the connection. (A call pipelined on a field that holds
// no capability needs no check here: the engine fails that call alone.)
type tracker struct {
	maxCalls int // <= 0: unlimited
	maxCaps  int // <= 0: unlimited
	budget   *connBudget

	mu        sync.Mutex
	answers   map[uint32]*answer // the peer's questions, by question id
	calls     int                // answers not yet returned
	questions map[uint32]int64   // our questions: bytes counted until the peer's Return
}

// answer is one of the peer's questions.
type answer struct {
	returned bool
	finished bool
	held     int64 // bytes counted against the budget
}

func newTracker(o *CodecOptions, b *connBudget) *tracker {
	return &tracker{
		maxCalls: o.MaxInflightCalls, maxCaps: o.MaxCapsPerMessage,
		budget: b, answers: make(map[uint32]*answer), questions: make(map[uint32]int64),
	}
}

// received accounts for and vets an incoming message of size bytes.
func (t *tracker) received(msg rpccp.Message, size int) *budgetError {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch msg.Which() {
	case rpccp.Message_Which_bootstrap:
		boot, err := msg.Bootstrap()
		if err != nil {
			return nil
		}
		return t.newAnswer(boot.QuestionId(), &answer{}, size)
	case rpccp.Message_Which_call:
		return t.receivedCall(msg, size)
	case rpccp.Message_Which_finish:
		if fin, err := msg.Finish(); err == nil {
			t.finish(fin.QuestionId())
		}
	case rpccp.Message_Which_return:
		return t.receivedReturn(msg)
	}
	return nil
}

func (t *tracker) receivedCall(msg rpccp.Message, size int) *budgetError {
	call, err := msg.Call()
	if err != nil {
		return nil // the engine answers a malformed call itself
	}
	params, _ := call.Params()
	if lerr := t.checkCaps(params); lerr != nil {
		return lerr
	}
	return t.newAnswer(call.QuestionId(), &answer{}, size)
}

func (t *tracker) receivedReturn(msg rpccp.Message) *budgetError {
	ret, err := msg.Return()
	if err != nil {
		return nil
	}
	if ret.Which() == rpccp.Return_Which_results {
		results, _ := ret.Results()
		if lerr := t.checkCaps(results); lerr != nil {
			return lerr
		}
	}
	if n, ok := t.questions[ret.AnswerId()]; ok {
		delete(t.questions, ret.AnswerId())
		t.budget.release(n)
	}
	return nil
}

// checkCaps enforces MaxCapsPerMessage on a payload.
func (t *tracker) checkCaps(p rpccp.Payload) *budgetError {
	if t.maxCaps <= 0 || !p.IsValid() {
		return nil
	}
	caps, err := p.CapTable()
	if err != nil || caps.Len() <= t.maxCaps {
		return nil
	}
	return &budgetError{LimitCapsPerMessage, websocket.ClosePolicyViolation,
		fmt.Sprintf("sharevat: %d capabilities in one message (limit %d)", caps.Len(), t.maxCaps)}
}

// newAnswer starts accounting for question id of the peer.
func (t *tracker) newAnswer(id uint32, a *answer, size int) *budgetError {
	if old := t.answers[id]; old != nil { // a reused id: the engine refuses it; keep counts sane
		t.drop(id, old)
	}
	t.calls++
	if t.maxCalls > 0 && t.calls > t.maxCalls {
		t.calls--
		return &budgetError{LimitInflightCalls, websocket.ClosePolicyViolation, reasonTooManyCalls(t.maxCalls)}
	}
	a.held = answerOverhead + int64(size)
	if lerr := t.budget.charge(a.held); lerr != nil {
		t.calls--
		return lerr
	}
	t.answers[id] = a
	return nil
}

func (t *tracker) finish(id uint32) {
	a := t.answers[id]
	if a == nil {
		return
	}
	a.finished = true
	if a.returned {
		t.drop(id, a)
	}
}

// drop forgets an answer and releases what it held.
func (t *tracker) drop(id uint32, a *answer) {
	if !a.returned {
		t.calls--
	}
	t.budget.release(a.held)
	delete(t.answers, id)
}

// sent accounts for an outgoing message of size bytes (the marshalled
// frame): a Return ends a call and is kept until the peer's Finish; a Call
// of ours is counted until the peer's Return.
func (t *tracker) sent(m *capnp.Message, size int) *budgetError {
	msg, err := rpccp.ReadRootMessage(m)
	if err != nil {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch msg.Which() {
	case rpccp.Message_Which_return:
		if ret, err := msg.Return(); err == nil {
			return t.returned(ret.AnswerId(), size, ret.NoFinishNeeded())
		}
	case rpccp.Message_Which_call:
		if call, err := msg.Call(); err == nil {
			return t.called(call.QuestionId(), size)
		}
	case rpccp.Message_Which_unimplemented:
		// The engine bounces a message it does not understand; a bounced
		// Call never gets an answer.
		if inner, err := msg.Unimplemented(); err == nil && inner.Which() == rpccp.Message_Which_call {
			if call, err := inner.Call(); err == nil {
				if a := t.answers[call.QuestionId()]; a != nil {
					t.drop(call.QuestionId(), a)
				}
			}
		}
	}
	return nil
}

// returned ends one of the peer's calls: its answer is kept until the
// peer's Finish, unless the Return says none is needed (noFinish).
func (t *tracker) returned(id uint32, size int, noFinish bool) *budgetError {
	a := t.answers[id]
	if a == nil || a.returned {
		return nil
	}
	a.returned = true
	t.calls--
	t.budget.release(a.held)
	a.held = 0
	if a.finished || noFinish {
		delete(t.answers, id)
		return nil
	}
	a.held = answerOverhead + int64(size)
	if lerr := t.budget.charge(a.held); lerr != nil {
		a.held = 0
		return lerr
	}
	return nil
}

func (t *tracker) called(id uint32, size int) *budgetError {
	if old, ok := t.questions[id]; ok {
		t.budget.release(old)
	}
	if lerr := t.budget.charge(int64(size)); lerr != nil {
		delete(t.questions, id)
		return lerr
	}
	t.questions[id] = int64(size)
	return nil
}

func reasonTooManyCalls(max int) string {
	return fmt.Sprintf("sharevat: more than %d calls in flight", max)
}
