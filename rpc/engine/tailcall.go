package engine

// Tail calls (rpc.capnp, Call.sendResultsTo.yourself and
// Return.takeFromOtherQuestion). A peer that answers one of our calls by
// calling one of our capabilities (rpc.c++ does for every call it
// forwards back to our vat) makes that call with sendResultsTo.yourself:
// we keep its results (the answer's Return says resultsSentElsewhere),
// and the peer's Return for our call names the answer
// (takeFromOtherQuestion), whose results become our question's. Until
// they are handed over, calls pipelined on our question keep going to
// the peer, which forwards them to the answer; once they are, calls on
// the capabilities those transforms reach are embargoed (embargo.go) as
// for any result of ours, so they do not overtake the forwarded ones.

import (
	capnp "capnproto.org/go/capnp/v3"
)

// takeFrom handles a Return(takeFromOtherQuestion id) for q: it claims
// our answer id (a tail call of the peer's, claimed once) and hands its
// results over at once if they are final, or when its method returns.
// Called with c.mu held, which it releases; it owns msg.
func (c *Conn) takeFrom(q *question, id uint32, msg *capnp.Message, gone []capnp.Client) error {
	a := c.answers[id]
	var err error
	ready := false
	if a == nil || !a.yourself || a.taker != nil {
		err = protocolErr("takeFromOtherQuestion names no tail call of ours to take")
	} else {
		q.redirected, a.taker = true, q
		ready = a.resolved
		a.taken = ready
	}
	c.mu.Unlock()
	msg.Release()
	releaseAll(gone)
	if ready {
		c.takeResults(q, a, a.results)
	}
	return err
}

// handOver gives a tail call's final results (content, or retErr) to the
// question that claimed them, if one has and they were not handed yet.
// Called on the answer's Return, before the answer is marked sent.
func (a *answer) handOver(content capnp.Ptr) {
	c := a.c
	c.mu.Lock()
	q := a.taker
	hand := q != nil && !a.taken
	a.taken = a.taken || hand
	c.mu.Unlock()
	if hand {
		c.takeResults(q, a, content)
	}
}

// takeResults completes q with a copy of answer a's results, as a Return
// with those results would: embargoes, settle, Finish.
func (c *Conn) takeResults(q *question, a *answer, content capnp.Ptr) {
	rerr := a.retErr
	var msg *capnp.Message
	var results capnp.Ptr
	if rerr == nil {
		msg, results, rerr = copyResults(content)
	}
	c.mu.Lock()
	q.returned = true
	canceled := q.canceled
	if !canceled {
		q.results, q.err = results, rerr
		if rerr == nil {
			q.resultMsg = msg
			q.embargoes = c.embargo(q, msg, func(int) bool { return true })
		}
	}
	q.finishDue = true
	finish := q.takeFinish()
	if q.finishWritten {
		c.questions.remove(q.id)
	}
	c.mu.Unlock()
	if canceled && msg != nil {
		msg.Release()
	}
	if !canceled {
		q.settle(results, rerr)
	}
	if finish {
		c.finishQuestion(q)
	}
}

// copyResults copies content, capabilities included (each gets its own
// reference), into a message of its own: the answer's is released at
// the peer's Finish, which may come before our caller is done.
func copyResults(content capnp.Ptr) (*capnp.Message, capnp.Ptr, error) {
	msg, seg, err := capnp.NewMessage(capnp.SingleSegment(nil))
	if err != nil {
		return nil, capnp.Ptr{}, err
	}
	if !content.IsValid() {
		return msg, capnp.Ptr{}, nil
	}
	root, err := capnp.NewRootStruct(seg, capnp.ObjectSize{PointerCount: 1})
	if err == nil {
		err = root.SetPtr(0, content)
	}
	if err != nil {
		msg.Release()
		return nil, capnp.Ptr{}, err
	}
	p, err := root.Ptr(0)
	return msg, p, err
}

// redirectReturn is the Return of a tail call: resultsSentElsewhere.
func redirectReturn(id uint32) *capnp.Message {
	msg, root := newMessage()
	ret, err := root.NewReturn()
	if err == nil {
		ret.SetAnswerId(id)
		ret.SetReleaseParamCaps(false)
		ret.SetResultsSentElsewhere()
	}
	return msg
}
