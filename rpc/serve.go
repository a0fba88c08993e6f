package rpc

import (
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	capnp "capnproto.org/go/capnp/v3"
	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc/engine"
)

// serverConn is one tracked connection of a Handler.
type serverConn struct {
	peer     Peer
	stop     chan struct{} // closed by kick: the Handler is shutting down
	stopOnce sync.Once
	done     chan struct{} // closed when ServeHTTP is finished with it
}

func newServerConn(peer Peer) *serverConn {
	return &serverConn{peer: peer, stop: make(chan struct{}), done: make(chan struct{})}
}

func (sc *serverConn) kick() { sc.stopOnce.Do(func() { close(sc.stop) }) }

// serve runs RPC on ws until the connection ends or the Handler closes it.
func (h *Handler) serve(sc *serverConn, ws *websocket.Conn) {
	log := h.log.With("remote", sc.peer.RemoteAddr)
	codec := NewCodec(ws, CodecOptions{
		ReadLimit:    h.opts.ReadLimit,
		PingInterval: h.opts.PingInterval,
		PongTimeout:  h.opts.PongTimeout,
		WriteTimeout: h.opts.WriteTimeout,
		Logger:       log,

		MaxInflightCalls:  h.opts.MaxInflightCalls,
		ConnMemory:        h.opts.ConnMemory,
		Pool:              h.opts.Pool,
		MaxCapsPerMessage: h.opts.MaxCapsPerMessage,
		AssembleTimeout:   h.opts.AssembleTimeout,
		OnLimit:           h.opts.OnLimit,
	})
	log.Debug("sharevat/rpc: connection opened", "origin", sc.peer.Origin, "user_agent", sc.peer.UserAgent)
	defer func() { log.Debug("sharevat/rpc: connection closed", "reason", endReason(codec)) }()
	defer recoverConn(log, codec)
	sc.peer.Meter = codecMeter{codec}
	boot, err := h.bootstrap(sc.peer)
	if err != nil {
		log.Error("sharevat/rpc: bootstrap failed", "err", err)
		_ = codec.CloseWith(websocket.CloseInternalServerErr, reasonInternal)
		return
	}
	conn := startEngine(codec, boot, log)
	select {
	case <-conn.Done():
	case <-sc.stop:
		_ = codec.CloseWith(websocket.CloseGoingAway, reasonShutdown)
		<-conn.Done()
	}
	_ = codec.Close() // already closed by the engine; makes sure the pinger is gone
}

// recoverConn turns a panic while serving into a log entry and a 1011
// close of this connection only.
func recoverConn(log *slog.Logger, codec *Codec) {
	if v := recover(); v != nil {
		log.Error("sharevat/rpc: recovered panic, closing the connection", "panic", v, "stack", string(debug.Stack()))
		_ = codec.CloseWith(websocket.CloseInternalServerErr, reasonInternal)
	}
}

// bootstrap calls the application's Bootstrap, turning a panic into an
// error so that only this connection is closed.
func (h *Handler) bootstrap(peer Peer) (c capnp.Client, err error) {
	if h.opts.Bootstrap == nil {
		return capnp.Client{}, nil
	}
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic in Bootstrap: %v\n%s", v, debug.Stack())
		}
	}()
	return h.opts.Bootstrap(peer), nil
}

// endReason describes how a connection ended, for the log.
func endReason(c *Codec) string {
	if err := c.Err(); err != nil {
		return err.Error()
	}
	return "closed normally"
}

// startEngine runs Cap'n Proto RPC (package rpc/engine) on codec. It takes
// ownership of boot.
func startEngine(codec *Codec, boot capnp.Client, log *slog.Logger) *engine.Conn {
	return engine.NewConn(codec, &engine.Options{BootstrapClient: boot, Logger: log})
}
