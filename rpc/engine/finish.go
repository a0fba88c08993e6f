package engine

// The end of an answer: the peer's Finish, or the connection's end.

import (
	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// removeAnswer forgets a. Called with c.mu held.
func (c *Conn) removeAnswer(a *answer) {
	if c.answers[a.id] == a {
		delete(c.answers, a.id)
	}
}

// drop releases what the answer held: its context, the results message
// and, if the peer's Finish asked, the result caps' export references.
func (a *answer) drop() {
	a.cancel()
	c := a.c
	var gone []capnp.Client
	c.mu.Lock()
	if a.releaseRes && a.sent {
		gone = c.releaseExports(a.exports)
		a.exports = nil
	}
	msg := a.msg
	a.msg = nil
	c.mu.Unlock()
	releaseAll(gone)
	if msg != nil {
		msg.Release()
	}
}

// handleFinish is the peer done with one of its questions: the id is
// free at once; before the Return the call is canceled (its Return then
// says so and drops the answer), after it the answer is dropped. A
// Finish for an id that names no answer is ignored.
func (c *Conn) handleFinish(m rpccp.Message) error {
	fin, err := m.Finish()
	if err != nil {
		return protocolErr("unreadable finish")
	}
	c.mu.Lock()
	a := c.answers[fin.QuestionId()]
	if a == nil || a.finished {
		// As rpc.c++: ignored. A Finish may cross our Return (or come
		// twice); it names nothing we hold.
		c.mu.Unlock()
		return nil
	}
	a.finished = true
	a.releaseRes = fin.ReleaseResultCaps()
	sent := a.sent
	c.removeAnswer(a) // the id is the peer's again; a running call keeps a
	c.mu.Unlock()
	if sent {
		a.drop()
	} else {
		a.cancel()
	}
	return nil
}

// dropIfSent drops a returned answer at shutdown; one still running only
// has its context canceled, and its Return drops it.
func (a *answer) dropIfSent() {
	a.c.mu.Lock()
	sent := a.sent
	a.c.mu.Unlock()
	if sent {
		a.drop()
	} else {
		a.cancel()
	}
}
