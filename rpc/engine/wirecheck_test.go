package engine_test

// wireChecker wraps a caller's codec and checks the question-id rules of
// rpc.capnp on the wire, in wire order (its writes are serialised so that
// what it sees is what the peer reads): a question id is used by a new
// Bootstrap or Call only when it is free (never used, or both its Return
// arrived and its Finish was written, or its Return said noFinishNeeded);
// a Finish names a question in use and comes once; a Call pipelined on a
// question comes before its Finish (or, after a noFinishNeeded Return,
// before the id is used again: the callee fails that call alone).

import (
	"fmt"
	"sync"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/rpc/transport"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

type qstate struct{ returned, finished bool }

type wireChecker struct {
	transport.Codec
	writing    sync.Mutex // serialises writes: checked in wire order
	mu         sync.Mutex // guards the state; never held while writing
	inUse      map[uint32]*qstate
	lapsed     map[uint32]bool // freed by a noFinishNeeded Return, not reused yet
	violations []string
}

func newWireChecker(c transport.Codec) *wireChecker {
	return &wireChecker{Codec: c, inUse: map[uint32]*qstate{}, lapsed: map[uint32]bool{}}
}

func (w *wireChecker) violate(format string, args ...any) {
	if len(w.violations) < 20 {
		w.violations = append(w.violations, fmt.Sprintf(format, args...))
	}
}

// free forgets q once it returned and was finished.
func (w *wireChecker) free(q uint32) {
	if s := w.inUse[q]; s != nil && s.returned && s.finished {
		delete(w.inUse, q)
	}
}

func (w *wireChecker) Encode(msg *capnp.Message) error {
	w.writing.Lock()
	defer w.writing.Unlock()
	if m, err := rpccp.ReadRootMessage(msg); err == nil {
		w.mu.Lock()
		w.sent(m)
		w.mu.Unlock()
	}
	return w.Codec.Encode(msg)
}

func (w *wireChecker) sent(m rpccp.Message) {
	switch m.Which() {
	case rpccp.Message_Which_bootstrap, rpccp.Message_Which_call:
		q := questionOf(m)
		if w.inUse[q] != nil {
			w.violate("question id %d reused while in use %+v", q, *w.inUse[q])
		}
		if m.Which() == rpccp.Message_Which_call {
			c, _ := m.Call()
			tgt, _ := c.Target()
			if tgt.Which() == rpccp.MessageTarget_Which_promisedAnswer {
				pa, _ := tgt.PromisedAnswer()
				if s := w.inUse[pa.QuestionId()]; s == nil && !w.lapsed[pa.QuestionId()] || s != nil && s.finished {
					w.violate("call pipelined on question %d after its Finish", pa.QuestionId())
				}
			}
		}
		w.inUse[q] = &qstate{}
		delete(w.lapsed, q)
	case rpccp.Message_Which_finish:
		q := questionOf(m)
		s := w.inUse[q]
		if s == nil || s.finished {
			w.violate("Finish for question %d not in use", q)
			return
		}
		s.finished = true
		w.free(q)
	}
}

func (w *wireChecker) Decode() (*capnp.Message, error) {
	msg, err := w.Codec.Decode()
	if err != nil {
		return msg, err
	}
	if m, err := rpccp.ReadRootMessage(msg); err == nil && m.Which() == rpccp.Message_Which_return {
		w.mu.Lock()
		q := questionOf(m)
		if s := w.inUse[q]; s == nil || s.returned {
			w.violate("Return for question %d not in use", q)
		} else {
			s.returned = true
			if ret, _ := m.Return(); ret.NoFinishNeeded() {
				s.finished = true
				w.lapsed[q] = true
			}
			w.free(q)
		}
		w.mu.Unlock()
	}
	return msg, nil
}

// problems is what the checker found.
func (w *wireChecker) problems() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.violations...)
}
