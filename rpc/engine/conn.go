package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// Options configures a Conn. A nil *Options means all defaults.
type Options struct {
	// BootstrapClient is offered to the peer; the Conn owns this
	// reference and releases it on shutdown.
	BootstrapClient capnp.Client
	// Logger receives connection events; nil: discard. Message contents
	// are never logged.
	Logger *slog.Logger
}

// Codec carries whole Cap'n Proto messages to and from the peer; its
// method set is go-capnp's transport.Codec, which the engine does not
// import (doc.go, "What the engine needs from its codec").
type Codec interface {
	Encode(*capnp.Message) error
	Decode() (*capnp.Message, error)
	Close() error
}

// Conn is one Cap'n Proto RPC connection (level 1) over a codec.
type Conn struct {
	codec  Codec
	log    *slog.Logger
	boot   capnp.Client
	ctx    context.Context // parent of every answer's context; ends at shutdown
	cancel context.CancelFunc
	done   chan struct{} // closed once the reader has exited and everything is released

	liveImports atomic.Int64   // import hooks not yet shut down
	watchers    sync.WaitGroup // exported promises awaiting their resolution
	closeOnce   sync.Once      // the codec is closed once (closeCodec)

	mu         sync.Mutex
	dead       bool  // shutdown has begun: no new questions, exports or answers
	closedByUs bool  // Close was called before anything else ended the connection
	err        error // why the connection ended
	questions  questionTable
	answers    map[uint32]*answer
	exports    exportTable
	imports    map[uint32]*importClient // the live hook of each import id
	// draining counts Returns written whose queued pipelined calls are
	// still being delivered; the reader waits (drained) before it
	// delivers another Call, so a call the peer made after seeing a
	// Return never overtakes the calls queued before it.
	draining int
	drained  *sync.Cond
	// embargoes are result capabilities of ours held back until the
	// peer reflects our Disembargo (embargo.go).
	embargoes embargoTable
}

// NewConn starts RPC on c: one reader goroutine decodes and dispatches
// every message until the codec fails, the peer aborts or Close is called.
func NewConn(c Codec, opts *Options) *Conn {
	if opts == nil {
		opts = &Options{}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	conn := &Conn{
		codec: c, log: log, boot: opts.BootstrapClient, ctx: ctx, cancel: cancel,
		done: make(chan struct{}), answers: make(map[uint32]*answer),
		imports: make(map[uint32]*importClient),
	}
	conn.drained = sync.NewCond(&conn.mu)
	conn.questions.init()
	conn.exports.init()
	go conn.read()
	return conn
}

// Done is closed when the connection has shut down and released all it held.
func (c *Conn) Done() <-chan struct{} { return c.done }

// Err reports why the connection ended: nil while it runs or after our
// own Close; otherwise the peer's Abort, a protocol violation or the
// codec's error.
func (c *Conn) Err() error {
	select {
	case <-c.done:
	default:
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closedByUs {
		return nil
	}
	return c.err
}

// Close ends the connection in order: it sends an Abort, fails our
// outstanding questions, cancels the peer's calls, releases every export
// and import, closes the codec and waits for the reader to exit.
func (c *Conn) Close() error {
	c.mu.Lock()
	if !c.dead {
		c.closedByUs = true
	}
	c.mu.Unlock()
	c.shutdown(errors.New("connection closed"), true)
	<-c.done
	return nil
}

// read is the connection's one reader goroutine.
func (c *Conn) read() {
	defer close(c.done)
	for {
		msg, err := c.codec.Decode()
		if err != nil {
			c.shutdown(fmt.Errorf("receive: %w", err), false)
			break
		}
		if err := c.dispatchSafely(msg); err != nil {
			var pe *peerAbort
			c.shutdown(err, !errors.As(err, &pe))
			break
		}
	}
	c.release()
	c.watchers.Wait() // c.ctx has ended: each returns
}

// dispatchSafely dispatches msg, turning a panic into a protocol error.
func (c *Conn) dispatchSafely(msg *capnp.Message) (err error) {
	defer func() {
		if v := recover(); v != nil {
			c.log.Error("sharevat/rpc/engine: recovered panic in dispatch", "panic", v, "stack", string(debug.Stack()))
			err = protocolErr("internal error while handling a message")
		}
	}()
	return c.dispatch(msg)
}

// dispatch handles one incoming message. It takes ownership of msg.
func (c *Conn) dispatch(msg *capnp.Message) error {
	m, err := rpccp.ReadRootMessage(msg)
	if err != nil {
		msg.Release()
		return protocolErr("unreadable message")
	}
	switch m.Which() {
	case rpccp.Message_Which_call:
		c.waitDrained()
		return c.handleCall(msg, m)
	case rpccp.Message_Which_return:
		return c.handleReturn(msg, m)
	}
	defer msg.Release()
	switch m.Which() {
	case rpccp.Message_Which_bootstrap:
		return c.handleBootstrap(m)
	case rpccp.Message_Which_finish:
		return c.handleFinish(m)
	case rpccp.Message_Which_release:
		return c.handleRelease(m)
	case rpccp.Message_Which_resolve:
		return c.handleResolve(m)
	case rpccp.Message_Which_disembargo:
		c.waitDrained()
		return c.handleDisembargo(m)
	case rpccp.Message_Which_abort:
		return peerAborted(m)
	case rpccp.Message_Which_unimplemented:
		c.log.Debug("sharevat/rpc/engine: peer answered Unimplemented")
		return nil
	default:
		return c.sendUnimplemented(m)
	}
}

// shutdown ends the connection once: it records why, optionally sends an
// Abort, closes the codec (which ends the reader) and cancels the peer's
// calls. The tables are emptied by release, on the reader goroutine.
func (c *Conn) shutdown(why error, abort bool) {
	c.mu.Lock()
	if c.dead {
		c.mu.Unlock()
		return
	}
	c.dead = true
	c.err = why
	c.drained.Broadcast()
	c.mu.Unlock()
	var pe *protocolError
	if errors.As(why, &pe) {
		// Our own fixed text, never the peer's bytes.
		c.log.Warn("sharevat/rpc/engine: aborting the connection", "err", why)
	}
	if abort {
		c.sendAbort(why)
	}
	c.cancel()
	c.closeCodec()
}

// closeCodec closes the codec once, whichever path notices the end first
// (a failed write, the reader, Close): a codec's Close need not be safe
// to repeat or to call concurrently.
func (c *Conn) closeCodec() {
	c.closeOnce.Do(func() {
		if err := c.codec.Close(); err != nil {
			c.log.Debug("sharevat/rpc/engine: closing the codec", "err", err)
		}
	})
}

// release empties every table once the reader has stopped: our questions
// fail with the reason the connection ended, the peer's answers are
// dropped, exports and the bootstrap capability are released.
func (c *Conn) release() {
	c.mu.Lock()
	why := c.err
	qs := c.questions.drain()
	as := c.answers
	c.answers = make(map[uint32]*answer)
	exps := c.exports.drain()
	embs := c.embargoes.drain()
	c.mu.Unlock()
	for _, e := range embs {
		e.res.Reject(capnp.Disconnected(why.Error()))
		e.client.Release()
	}
	dis := capnp.Disconnected(why.Error())
	for _, q := range qs {
		q.settleErr(dis)
	}
	for _, a := range as {
		a.dropIfSent()
	}
	for _, e := range exps {
		e.client.Release()
	}
	c.boot.Release()
}

// send writes msg and releases it. A failed write closes the codec, which
// ends the reader and so the connection.
func (c *Conn) send(msg *capnp.Message) error {
	err := c.codec.Encode(msg)
	msg.Release()
	if err != nil {
		c.log.Debug("sharevat/rpc/engine: send failed", "err", err)
		c.closeCodec()
	}
	return err
}

// newMessage starts an outgoing RPC message.
func newMessage() (*capnp.Message, rpccp.Message) {
	msg, seg, err := capnp.NewMessage(capnp.SingleSegment(nil))
	if err != nil {
		panic(err) // a fresh single-segment arena always has room
	}
	root, err := rpccp.NewRootMessage(seg)
	if err != nil {
		panic(err)
	}
	return msg, root
}

// isDead reports whether shutdown has begun.
func (c *Conn) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

// waitDrained waits until no Return is delivering its queued calls.
func (c *Conn) waitDrained() {
	c.mu.Lock()
	for c.draining > 0 && !c.dead {
		c.drained.Wait()
	}
	c.mu.Unlock()
}
