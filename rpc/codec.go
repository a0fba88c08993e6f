package rpc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc/engine"
)

// maxSegments is the largest segment count accepted in one message: the
// limit of go-capnp's stream decoder and of the C++ implementation.
const maxSegments = 512

// minTraverseLimit is go-capnp's default traversal limit per message.
const minTraverseLimit = 64 << 20

var (
	// ErrClosed is returned by Encode and Decode once the Codec has sent
	// its close frame or been closed.
	ErrClosed = errors.New("sharevat: connection closed")

	errTooLarge    = errors.New("sharevat: message over the read limit")
	errAssembly    = errors.New("sharevat: message not complete in time")
	errWriteBusy   = errors.New("sharevat: write timed out waiting for the connection")
	errFrameLength = errors.New("sharevat: frame length does not match the segment table")
)

var _ engine.Codec = (*Codec)(nil)

// Codec carries Cap'n Proto messages over a WebSocket connection, one
// message per binary WebSocket message, and keeps the connection alive with
// pings. It is the engine's Codec (the method set of go-capnp's
// transport.Codec), which engine.NewConn runs RPC on.
//
// Encode, Decode and Close may be called from different goroutines, Encode
// from several at once; Decode must not be called concurrently with itself
// (the engine's one reader calls it).
type Codec struct {
	ws     *websocket.Conn
	opts   CodecOptions
	budget *connBudget // what the vat holds for this peer (budget.go)
	track  *tracker    // questions in both directions (questions.go)
	sendq  sendQueue   // frames accepted by Encode, not yet written (sendq.go)

	wsem chan struct{} // write lock for data and control frames; a channel so waits can time out
	rmu  sync.Mutex    // read lock: Decode and the close handshake drain
	// first holds the first word of the message being read (rmu held).
	first [8]byte

	mu       sync.Mutex // guards the fields below; never held across I/O that can block
	closing  bool       // Close has started: no deadline extension, no new reads
	assembly time.Time  // non-zero while a message is being read: its deadline
	// closeWritten is closed once stopWith has written its close frame
	// (or given up); nil unless stopWith claimed the close.
	closeWritten chan struct{}
	closeSent    bool // our close frame is out (or can no longer be sent)
	received     *CloseError
	peerInit     bool  // the peer sent its close frame before we sent ours
	end          error // why the connection ended, first cause wins

	pinger    *time.Timer   // fires ping every PingInterval; nil without keepalive
	dead      chan struct{} // closed once the socket is closed
	killOnce  sync.Once
	closeOnce sync.Once
	wg        sync.WaitGroup // a ping in progress
}

// NewCodec takes over ws: it installs ws's close, ping and pong handlers,
// sets its read deadline and arms the keepalive timer, which Close stops
// (waiting for a ping in progress). A timer rather than a goroutine: an
// idle connection should cost as little as possible.
func NewCodec(ws *websocket.Conn, opts CodecOptions) *Codec {
	c := &Codec{
		ws:   ws,
		opts: opts.withDefaults(),
		wsem: make(chan struct{}, 1),
		dead: make(chan struct{}),
	}
	c.budget = newConnBudget(max(c.opts.ConnMemory, 0), c.opts.Pool, func() { _ = c.limitExceeded(errEvicted) })
	c.track = newTracker(&c.opts, c.budget)
	ws.SetCloseHandler(c.onClose)
	ws.SetPingHandler(c.onPing)
	ws.SetPongHandler(c.onPong)
	_ = ws.SetReadDeadline(time.Time{}) // drop what net/http may have set before the hijack
	c.extendReadDeadline()
	if c.opts.PingInterval > 0 {
		c.pinger = time.AfterFunc(c.opts.PingInterval, c.ping)
	}
	return c
}

// Encode queues m to be sent as one binary WebSocket message and returns
// without waiting for the write (sendq.go). It fails once the connection
// is closing, or when the frame would exceed the connection's memory
// budget, which closes the connection.
func (c *Codec) Encode(m *capnp.Message) (err error) {
	defer c.recoverPanic("encode", &err)
	if c.isCloseSent() {
		return ErrClosed
	}
	b, err := m.Marshal()
	if err != nil {
		return fmt.Errorf("sharevat: encode: %w", err)
	}
	if lerr := c.track.sent(m, len(b)); lerr != nil {
		return c.limitExceeded(lerr)
	}
	return c.enqueueFrame(b)
}

// Decode reads the next WebSocket message and parses it as exactly one
// Cap'n Proto message. On a protocol violation or a limit it sends the
// matching close frame and returns an error; the engine then shuts the
// connection down.
func (c *Codec) Decode() (m *capnp.Message, err error) {
	defer c.recoverPanic("decode", &err)
	c.rmu.Lock()
	defer c.rmu.Unlock()
	if c.isClosing() {
		return nil, ErrClosed
	}
	typ, data, err := c.readMessage()
	defer c.budget.release(int64(len(data))) // the tracker counts what the engine keeps
	switch {
	case err != nil:
		return nil, c.readFailed(err)
	case typ != websocket.BinaryMessage:
		return nil, c.reject(websocket.CloseUnsupportedData, reasonTextFrame)
	}
	if m, err = parseMessage(data, c.opts.ReadLimit); err != nil {
		return nil, c.reject(websocket.CloseInvalidFramePayloadData, reasonMalformed)
	}
	msg, err := rpccp.ReadRootMessage(m)
	if err != nil {
		m.Release()
		return nil, c.reject(websocket.CloseInvalidFramePayloadData, reasonMalformed)
	}
	if lerr := c.track.received(msg, len(data)); lerr != nil {
		m.Release()
		return nil, c.limitExceeded(lerr)
	}
	return m, nil
}

// readMessage reads one data message. A binary message is read as a Cap'n
// Proto message: its segment table first, which gives its size, checked
// against ReadLimit and charged to the budget before the rest is read;
// from its first frame to its last it has AssembleTimeout, which pings in
// between do not extend. On success the data's length stays charged for
// Decode to release.
func (c *Codec) readMessage() (int, []byte, error) {
	typ, r, err := c.ws.NextReader()
	if err != nil {
		return 0, nil, err
	}
	if typ != websocket.BinaryMessage {
		c.extendReadDeadline()
		return typ, nil, nil
	}
	c.beginAssembly()
	defer c.endAssembly()
	data, err := c.readFramed(r)
	if err != nil && isTimeout(err) && c.assemblyExpired() {
		err = errAssembly
	}
	return typ, data, err
}

// readFramed reads one Cap'n Proto message from r, the reader of one
// WebSocket message, into one buffer.
func (c *Codec) readFramed(r io.Reader) ([]byte, error) {
	first := c.first[:] // a field, not a local: a buffer passed to a Reader escapes
	if _, err := io.ReadFull(r, first); err != nil {
		return nil, framingErr(err)
	}
	n := uint64(binary.LittleEndian.Uint32(first)) + 1
	if n > maxSegments {
		return nil, errFrameLength
	}
	hdrLen := (4 + 4*n + 7) &^ 7
	table := first
	if n > 1 { // the rest of the segment table, to learn the total
		table = make([]byte, hdrLen)
		copy(table, first)
		if _, err := io.ReadFull(r, table[8:]); err != nil {
			return nil, framingErr(err)
		}
	}
	total := hdrLen
	for i := range n {
		total += 8 * uint64(binary.LittleEndian.Uint32(table[4+4*i:]))
	}
	if total > uint64(c.opts.ReadLimit) {
		return nil, errTooLarge
	}
	if lerr := c.budget.charge(int64(total)); lerr != nil {
		return nil, lerr
	}
	data := make([]byte, total)
	copy(data, table)
	if _, err := io.ReadFull(r, data[len(table):]); err != nil {
		c.budget.release(int64(total))
		return nil, framingErr(err)
	}
	if err := c.checkEnd(r); err != nil {
		c.budget.release(int64(total))
		return nil, err
	}
	return data, nil
}

// checkEnd makes sure the WebSocket message ends where the segment table
// says: bytes beyond are a framing error, or an oversized message.
func (c *Codec) checkEnd(r io.Reader) error {
	n, err := io.Copy(io.Discard, io.LimitReader(r, c.opts.ReadLimit+1))
	switch {
	case err != nil:
		return err
	case n > c.opts.ReadLimit:
		return errTooLarge
	case n > 0:
		return errFrameLength
	}
	return nil
}

// framingErr turns the end of a WebSocket message inside a Cap'n Proto
// message into a framing error; other errors (the network) pass.
func framingErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errFrameLength
	}
	return err
}

// readFailed classifies a read error, sends a close frame where one is
// due, and returns the error Decode reports.
func (c *Codec) readFailed(err error) error {
	var ce *websocket.CloseError
	var lerr *budgetError
	switch {
	case errors.Is(err, errTooLarge):
		c.opts.OnLimit(LimitMessageSize)
		return c.reject(websocket.CloseMessageTooBig, reasonTooLarge(c.opts.ReadLimit))
	case errors.Is(err, errFrameLength):
		return c.reject(websocket.CloseInvalidFramePayloadData, reasonMalformed)
	case errors.Is(err, errAssembly):
		return c.limitExceeded(&budgetError{LimitAssembleTime, websocket.ClosePolicyViolation, reasonAssembly(c.opts.AssembleTimeout)})
	case errors.As(err, &lerr):
		return c.limitExceeded(lerr)
	case errors.As(err, &ce) && c.PeerClose() != nil:
		return fmt.Errorf("sharevat: peer closed the connection: %w", &CloseError{Code: ce.Code, Reason: ce.Text})
	case errors.As(err, &ce), c.isClosing():
		return ErrClosed
	case isTimeout(err):
		return c.reject(websocket.CloseGoingAway, reasonKeepalive(c.opts.PongTimeout))
	default:
		return c.fail(fmt.Errorf("sharevat: read: %w", err))
	}
}

// parseMessage parses data, one whole message as readFramed read it (its
// segment table checked against its length), and accepts it only with a
// readable root pointer.
func parseMessage(data []byte, readLimit int64) (*capnp.Message, error) {
	m, err := capnp.Unmarshal(data)
	if err != nil {
		return nil, err
	}
	m.TraverseLimit = uint64(max(4*readLimit, minTraverseLimit))
	if root, err := m.Root(); err != nil || !root.IsValid() {
		m.Release()
		return nil, errors.Join(errors.New("sharevat: no valid root pointer"), err)
	}
	return m, nil
}

// Close sends a normal close frame (unless a close frame already went
// out), waits up to closeGrace for the peer's close frame, closes the
// socket and stops the keepalive timer. It is idempotent; concurrent
// callers return when the first call has finished.
func (c *Codec) Close() error {
	c.closeOnce.Do(c.shutdown)
	return nil
}

// CloseWith is Close with the given close code and reason (at most 123
// bytes), unless a close frame has already been sent.
func (c *Codec) CloseWith(code int, reason string) error {
	_ = c.reject(code, reason)
	return c.Close()
}

func (c *Codec) shutdown() {
	if !c.isCloseSent() {
		c.flush(closeGrace) // an Abort the engine queued goes out before our close frame
	}
	c.beginClosing()
	if c.pinger != nil {
		c.pinger.Stop()
	}
	c.sendClose(websocket.CloseNormalClosure, "")
	c.awaitPeerClose()
	c.awaitCloseWritten(closeWriteWait) // a limit's close frame (stopWith) goes out whole
	c.kill()
	c.wg.Wait()
	<-c.sendq.idleChan() // the writer drops what is left at once on a dead socket
	c.budget.close()
}

// beginClosing marks the codec closing and bounds the remaining reads by
// closeGrace, under c.mu so extendReadDeadline cannot undo it.
func (c *Codec) beginClosing() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closing = true
	_ = c.ws.SetReadDeadline(time.Now().Add(closeGrace))
}

// awaitPeerClose reads (and drops) frames until the peer's close frame
// arrives, the read deadline passes or the socket fails. Reading instead
// of closing at once lets the peer's close frame and any data it still
// sends arrive, so the peer sees our close reason instead of a TCP reset.
func (c *Codec) awaitPeerClose() {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for !c.hasReceivedClose() {
		if _, _, err := c.ws.NextReader(); err != nil {
			return
		}
	}
}

// extendReadDeadline moves the read deadline PongTimeout ahead, but never
// past the deadline of a message being read.
func (c *Codec) extendReadDeadline() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return
	}
	var d time.Time
	if c.opts.PongTimeout > 0 {
		d = time.Now().Add(c.opts.PongTimeout)
	}
	if !c.assembly.IsZero() && (d.IsZero() || c.assembly.Before(d)) {
		d = c.assembly
	}
	_ = c.ws.SetReadDeadline(d)
}

func (c *Codec) beginAssembly() {
	c.mu.Lock()
	c.assembly = time.Now().Add(c.opts.AssembleTimeout)
	c.mu.Unlock()
	c.extendReadDeadline()
}

func (c *Codec) endAssembly() {
	c.mu.Lock()
	c.assembly = time.Time{}
	c.mu.Unlock()
	c.extendReadDeadline()
}

func (c *Codec) assemblyExpired() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.assembly.IsZero() && !time.Now().Before(c.assembly)
}

// lockWrite takes the write lock, giving up after d or when the socket
// dies. A free lock is taken without starting a timer.
func (c *Codec) lockWrite(d time.Duration) bool {
	select {
	case c.wsem <- struct{}{}:
		return true
	default:
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case c.wsem <- struct{}{}:
		return true
	case <-t.C:
		return false
	case <-c.dead:
		return false
	}
}

func (c *Codec) unlockWrite() { <-c.wsem }

func (c *Codec) writeUnavailable() error {
	if c.isDead() {
		return ErrClosed
	}
	return errWriteBusy
}

func (c *Codec) writeControl(typ int, data []byte, wait time.Duration) error {
	if !c.lockWrite(wait) {
		return c.writeUnavailable()
	}
	defer c.unlockWrite()
	return c.ws.WriteControl(typ, data, time.Now().Add(c.opts.WriteTimeout))
}

// kill closes the socket without a handshake; every blocked read and write
// returns.
func (c *Codec) kill() {
	c.killOnce.Do(func() {
		c.mu.Lock()
		c.closeSent = true
		c.mu.Unlock()
		close(c.dead)
		_ = c.ws.Close()
	})
}

func (c *Codec) isDead() bool {
	select {
	case <-c.dead:
		return true
	default:
		return false
	}
}

func isTimeout(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}
