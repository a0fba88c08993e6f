package engine

import (
	"context"
	"errors"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// dest is where a Call of ours goes: an import id, or (answer) the
// capability at ops in the results of our question id.
type dest struct {
	answer bool
	id     uint32
	ops    []capnp.PipelineOp
}

// question is one of our calls (or our Bootstrap) to the peer. It has no
// goroutine: the reader settles its promise when the Return arrives, and
// context.AfterFunc sends the Finish that cancels it.
type question struct {
	c            *Conn
	id           uint32
	promise      *capnp.Promise
	paramExports []uint32 // released if the Return says releaseParamCaps

	// Guarded by c.mu.
	stop     func() bool // disarms the cancellation AfterFunc
	returned bool        // the Return has arrived
	canceled bool        // the caller's context ended before the Return
	// The Return said takeFromOtherQuestion: the results are an answer
	// of ours still running; pipelined calls keep going to the peer
	// until they are handed over (tailcall.go).
	redirected bool
	settled    bool // the promise is resolved
	sending    int  // pipelined Calls on this question being written
	// The Finish is due once the question returned or was canceled; it
	// is written once no pipelined Call on the question is being written
	// (taken by the goroutine that finds it so), and the id is free once
	// it is written and the Return has arrived.
	finishDue     bool
	finishTaken   bool
	finishWritten bool
	// The Return said noFinishNeeded (its results hold no capability and
	// the peer already forgot the answer): the "Finish" then writes
	// nothing, only frees the id once no pipelined Call is being written.
	noFinish  bool
	results   capnp.Ptr // after a Return with results
	err       error     // after a Return with an exception
	resultMsg *capnp.Message
	released  bool                 // the caller released the answer
	piped     [][]capnp.PipelineOp // distinct transforms pipelined Calls used
	embargoes []disembargo         // to send with the Finish
}

// questionTable holds our questions by id. Guarded by Conn.mu. An id is
// reused only once its Return arrived and our Finish was written.
type questionTable struct {
	byID map[uint32]*question
	free []uint32
	next uint32
}

func (t *questionTable) init() { t.byID = make(map[uint32]*question) }

func (t *questionTable) add(q *question) {
	if n := len(t.free); n > 0 {
		q.id = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		q.id = t.next
		t.next++
	}
	t.byID[q.id] = q
}

func (t *questionTable) remove(id uint32) {
	delete(t.byID, id)
	t.free = append(t.free, id)
}

func (t *questionTable) drain() []*question {
	out := make([]*question, 0, len(t.byID))
	for _, q := range t.byID {
		out = append(out, q)
	}
	t.byID = make(map[uint32]*question)
	return out
}

var errCanceled = errors.New("call canceled")

// sendCall writes a Call to tgt with s's arguments and returns its answer.
// It is written by the calling goroutine.
func (c *Conn) sendCall(ctx context.Context, tgt dest, s capnp.Send) (*capnp.Answer, capnp.ReleaseFunc) {
	if err := ctx.Err(); err != nil {
		return capnp.ErrorAnswer(s.Method, err), func() {}
	}
	msg, call, params, err := buildCall(tgt, s)
	if err != nil {
		msg.Release()
		return capnp.ErrorAnswer(s.Method, err), func() {}
	}
	q := &question{c: c}
	q.promise = capnp.NewPromise(s.Method, q, nil)
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		msg.Release()
		return capnp.ErrorAnswer(s.Method, capnp.Disconnected("connection closed")), func() {}
	}
	q.paramExports, err = c.fillCapTable(params, msg.CapTable())
	c.questions.add(q)
	call.SetQuestionId(q.id)
	c.mu.Unlock()
	if err != nil || c.send(msg) != nil {
		c.mu.Lock()
		delete(c.questions.byID, q.id) // never reused: the peer may have seen it
		gone := c.releaseExports(q.paramExports)
		c.mu.Unlock()
		releaseAll(gone)
		q.settleErr(capnp.Disconnected("connection closed"))
		return q.promise.Answer(), q.release
	}
	q.watch(ctx)
	return q.promise.Answer(), q.release
}

// watch arms the cancellation of q by ctx, once q's message is written.
// The Return (or the connection's end) may already have been handled and
// found no watch to stop: then the watch is stopped at once, or a
// long-lived ctx would keep one per call.
func (q *question) watch(ctx context.Context) {
	stop := context.AfterFunc(ctx, func() { q.cancel(context.Cause(ctx)) })
	c := q.c
	c.mu.Lock()
	over := q.returned || q.settled
	if !over {
		q.stop = stop
	}
	c.mu.Unlock()
	if over {
		stop()
	}
}

// buildCall makes a Call message to tgt and places s's arguments.
func buildCall(tgt dest, s capnp.Send) (*capnp.Message, rpccp.Call, rpccp.Payload, error) {
	msg, root := newMessage()
	call, err := root.NewCall()
	if err != nil {
		return msg, call, rpccp.Payload{}, err
	}
	call.SetInterfaceId(s.Method.InterfaceID)
	call.SetMethodId(s.Method.MethodID)
	mt, err := call.NewTarget()
	if err != nil {
		return msg, call, rpccp.Payload{}, err
	}
	if tgt.answer {
		pa, err := mt.NewPromisedAnswer()
		if err == nil {
			err = writePromisedAnswer(pa, tgt.id, tgt.ops)
		}
		if err != nil {
			return msg, call, rpccp.Payload{}, err
		}
	} else {
		mt.SetImportedCap(tgt.id)
	}
	params, err := call.NewParams()
	if err != nil {
		return msg, call, params, err
	}
	st, err := capnp.NewStruct(params.Segment(), s.ArgsSize)
	if err != nil {
		return msg, call, params, err
	}
	if err := params.SetContent(st.ToPtr()); err != nil {
		return msg, call, params, err
	}
	if s.PlaceArgs != nil {
		if err := s.PlaceArgs(st); err != nil {
			return msg, call, params, err
		}
	}
	return msg, call, params, nil
}

// cancel is the caller's context ending before the Return: the answer
// fails at once, and a Finish asks the peer to cancel, written after the
// Calls pipelined on the question that are still being written (a Call
// must never follow its target's Finish).
func (q *question) cancel(cause error) {
	c := q.c
	c.mu.Lock()
	if q.returned || q.canceled || c.dead {
		c.mu.Unlock()
		return
	}
	q.canceled, q.finishDue = true, true
	finish := q.takeFinish()
	c.mu.Unlock()
	if cause == nil {
		cause = errCanceled
	}
	q.settleErr(cause)
	if finish {
		c.finishQuestion(q)
	}
}

// takeFinish reports whether the caller is to write q's Finish now: it is
// due and no pipelined Call on q is being written. Called with c.mu held.
func (q *question) takeFinish() bool {
	if !q.finishDue || q.sending > 0 || q.finishTaken {
		return false
	}
	q.finishTaken = true
	return true
}

// settle resolves the promise once; later results are dropped.
func (q *question) settle(results capnp.Ptr, err error) {
	c := q.c
	c.mu.Lock()
	if q.settled {
		c.mu.Unlock()
		return
	}
	q.settled = true
	stop := q.stop // settled: the caller's context no longer matters
	q.stop = nil
	c.mu.Unlock()
	if stop != nil {
		stop()
	}
	q.promise.Resolve(results, err)
	c.mu.Lock()
	released := q.released
	c.mu.Unlock()
	if released {
		q.free()
	}
}

func (q *question) settleErr(err error) { q.settle(capnp.Ptr{}, err) }

// release is the caller's ReleaseFunc. Before the promise settles it only
// marks the answer; settle then frees it, so release never blocks.
func (q *question) release() {
	c := q.c
	c.mu.Lock()
	if q.released {
		c.mu.Unlock()
		return
	}
	q.released = true
	settled := q.settled
	c.mu.Unlock()
	if settled {
		q.free()
	}
}

// free drops the promise's clients and the results message.
func (q *question) free() {
	q.promise.ReleaseClients()
	c := q.c
	c.mu.Lock()
	msg := q.resultMsg
	q.resultMsg = nil
	c.mu.Unlock()
	if msg != nil {
		msg.Release()
	}
}

// sendFinish tells the peer we are done with question id.
func (c *Conn) sendFinish(id uint32, releaseResultCaps bool) {
	msg, root := newMessage()
	fin, err := root.NewFinish()
	if err != nil {
		msg.Release()
		return
	}
	fin.SetQuestionId(id)
	fin.SetReleaseResultCaps(releaseResultCaps)
	_ = c.send(msg)
}
