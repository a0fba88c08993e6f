package rpc

import (
	"fmt"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// sendQueue holds the frames Encode has accepted and not yet written, in
// order. Encode writes a frame itself when nothing is queued and the
// socket can take it at once (enqueueFrame, sendRoom); otherwise the frame waits here
// for a writer goroutine that runs only while the queue is not empty (an
// idle connection costs no goroutine).
//
// Why a queue of our own: the engine calls Encode from many goroutines
// (callers, methods returning, its reader); if Encode blocked on a peer
// that does not read, they would all pile up behind it, out of sight of
// any budget, and two engines writing to each other could deadlock. Here
// Encode never waits on
// the peer: it writes only what the kernel accepts without blocking, and
// every queued byte counts against the connection's budget, so a peer
// that stops reading is closed (1008) instead of growing the vat.
type sendQueue struct {
	mu      sync.Mutex
	frames  [][]byte
	running bool          // a writer (inline or goroutine) owns the socket's data frames
	idle    chan struct{} // made on demand (idleChan), closed when the writer stops
}

// claim makes the caller the writer if there is none: it then writes
// its frame itself and calls done.
func (q *sendQueue) claim() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running {
		return false
	}
	q.running = true
	return true
}

// enqueue adds a frame; it reports whether a writer must be started.
func (q *sendQueue) enqueue(b []byte) (start bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.frames = append(q.frames, b)
	if q.running {
		return false
	}
	q.running = true
	return true
}

// done ends an inline writer's turn: it reports whether frames were
// queued meanwhile, and a writer goroutine must take over; if not, the
// queue is idle.
func (q *sendQueue) done() (more bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.frames) > 0 {
		return true
	}
	q.stop()
	return false
}

// next pops the oldest frame, or stops the writer when there is none.
func (q *sendQueue) next() ([]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.frames) == 0 {
		q.stop()
		q.frames = nil // let a burst's backing array go
		return nil, false
	}
	b := q.frames[0]
	q.frames[0] = nil
	q.frames = q.frames[1:]
	return b, true
}

// stop marks the queue idle; q.mu is held.
func (q *sendQueue) stop() {
	q.running = false
	if q.idle != nil {
		close(q.idle)
		q.idle = nil
	}
}

// idleChan returns a channel closed once the queue is empty.
func (q *sendQueue) idleChan() <-chan struct{} {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.running {
		return closedChan
	}
	if q.idle == nil {
		q.idle = make(chan struct{})
	}
	return q.idle
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// enqueueFrame sends b after charging it to the budget: at once from the
// calling goroutine when nothing is queued and the socket can take it
// without blocking (no hand-off to a writer goroutine, the common case of
// a call and its return), else through the queue.
func (c *Codec) enqueueFrame(b []byte) error {
	if lerr := c.budget.charge(int64(len(b))); lerr != nil {
		return c.limitExceeded(lerr)
	}
	if c.sendq.claim() {
		c.writeInline(b)
		return nil
	}
	if c.sendq.enqueue(b) {
		go c.writeLoop()
	}
	return nil
}

// writeInline writes b, the caller holding the queue's turn, if the
// socket takes it without blocking; otherwise it hands b to a writer
// goroutine. Either way it gives the turn back.
func (c *Codec) writeInline(b []byte) {
	if !c.canWriteNow(len(b)) {
		c.sendq.mu.Lock()
		c.sendq.frames = append(c.sendq.frames, b)
		c.sendq.mu.Unlock()
		go c.writeLoop()
		return
	}
	err := c.writeFrameLocked(b)
	c.unlockWrite()
	c.budget.release(int64(len(b)))
	if err != nil && !c.isDead() {
		_ = c.fail(err)
	}
	if c.sendq.done() {
		go c.writeLoop()
	}
}

// canWriteNow takes the write lock if it is free and the kernel's send
// buffer has room for n more bytes (sendRoom); it reports whether it
// took the lock.
func (c *Codec) canWriteNow(n int) bool {
	if c.isDead() || c.isCloseSent() {
		return false
	}
	select {
	case c.wsem <- struct{}{}:
	default:
		return false
	}
	if !sendRoom(c.ws.NetConn(), n) {
		c.unlockWrite()
		return false
	}
	return true
}

// writeLoop writes queued frames until the queue is empty or the socket
// fails; after a failure it drops what is left.
func (c *Codec) writeLoop() {
	defer c.recoverPanic("write", new(error))
	for {
		b, ok := c.sendq.next()
		if !ok {
			return
		}
		err := c.writeFrame(b)
		c.budget.release(int64(len(b)))
		if err != nil && !c.isDead() {
			_ = c.fail(err)
		}
	}
}

func (c *Codec) writeFrame(b []byte) error {
	if c.isDead() || c.isCloseSent() {
		return nil // dropped: the connection is ending
	}
	if !c.lockWrite(c.opts.WriteTimeout) {
		return c.writeUnavailable()
	}
	defer c.unlockWrite()
	return c.writeFrameLocked(b)
}

// writeFrameLocked writes b as one binary message; the write lock is
// held.
func (c *Codec) writeFrameLocked(b []byte) error {
	if c.isCloseSent() {
		return nil
	}
	_ = c.ws.SetWriteDeadline(time.Now().Add(c.opts.WriteTimeout))
	if err := c.ws.WriteMessage(websocket.BinaryMessage, b); err != nil {
		return fmt.Errorf("sharevat: write: %w", err)
	}
	return nil
}

// flush waits until the queued frames are written, the socket dies, or d
// passes.
func (c *Codec) flush(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-c.sendq.idleChan():
	case <-c.dead:
	case <-t.C:
	}
}

// limitExceeded reports a limit to OnLimit, sends the limit's close code
// and reason (waiting at most a second for the write lock: a peer over
// its budget is often one that does not read), ends the connection and
// returns the error Encode or Decode reports.
func (c *Codec) limitExceeded(lerr *budgetError) error {
	if lerr.limit != "" {
		c.opts.OnLimit(lerr.limit)
	}
	ce := &CloseError{Code: lerr.code, Reason: truncateReason(lerr.reason)}
	c.setEnd(fmt.Errorf("sharevat: closing the connection: %w", ce))
	c.stopWith(ce.Code, ce.Reason)
	if c.opts.Logger != nil {
		c.opts.Logger.Info("sharevat/rpc: limit exceeded, closing the connection", "limit", lerr.limit, "reason", lerr.reason)
	}
	return ce
}

// stopWith ends the connection on our side: it stops reading at once, so
// the engine's reader ends and it shuts the connection down, cancelling
// the peer's calls in flight (which would otherwise go on building
// answers no one receives); then it sends the close frame with
// code and reason unless one went out already, waiting at most a second
// for the write lock (a writer may be blocked on a peer that does not
// read). Shutdown waits for that frame before it drops the socket.
func (c *Codec) stopWith(code int, reason string) {
	c.mu.Lock()
	claimed := !c.closeSent
	c.closeSent = true
	if claimed {
		c.closeWritten = make(chan struct{})
	}
	c.mu.Unlock()
	c.stopReading()
	if !claimed {
		return
	}
	defer close(c.closeWritten)
	if !c.lockWrite(time.Second) {
		return
	}
	defer c.unlockWrite()
	_ = c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(code, reason), time.Now().Add(c.opts.WriteTimeout))
}

// awaitCloseWritten waits (at most d) for a close frame stopWith is
// writing.
func (c *Codec) awaitCloseWritten(d time.Duration) {
	c.mu.Lock()
	ch := c.closeWritten
	c.mu.Unlock()
	if ch == nil {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// stopReading marks the codec closing and makes a read in progress return
// at once (the peer's close frame is not awaited).
func (c *Codec) stopReading() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
	_ = c.ws.SetReadDeadline(time.Now())
}

// codecMeter is a connection's Meter: its budget, closing the connection
// when a charge does not fit. What the application charges is an answer
// being built (package vat's reads and snapshots, up to n bytes).
type codecMeter struct{ c *Codec }

func (m codecMeter) Charge(n int64) error {
	if lerr := m.c.budget.charge(n); lerr != nil {
		return m.c.limitExceeded(lerr)
	}
	return nil
}

func (m codecMeter) Release(n int64) { m.c.budget.release(n) }
