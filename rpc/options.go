package rpc

import (
	"log/slog"
	"time"
)

// Defaults for the zero values of the option structs.
const (
	DefaultReadLimit    = 16 << 20 // bytes per WebSocket message
	DefaultPingInterval = 30 * time.Second
	DefaultPongTimeout  = 60 * time.Second
	DefaultWriteTimeout = 30 * time.Second
	// DefaultMaxInflightCalls is the default cap on the calls a peer may
	// have in flight on one connection (see HandlerOptions).
	DefaultMaxInflightCalls = 1024
	// DefaultConnMemory is the default memory budget of one connection.
	DefaultConnMemory = 64 << 20
	// DefaultMaxCapsPerMessage caps the capability descriptors one
	// incoming message may carry; sharevat's schema needs at most one.
	DefaultMaxCapsPerMessage = 64
	// DefaultAssembleTimeout bounds the time between the first and the
	// last frame of one message.
	DefaultAssembleTimeout = 30 * time.Second
)

// closeGrace bounds how long Close waits for the peer to answer our close
// frame before it drops the TCP connection.
const closeGrace = 2 * time.Second

// closeWriteWait bounds how long Close waits, before it drops the
// socket, for a limit's close frame still being written (stopWith waits a
// second at most for the write lock).
const closeWriteWait = 1200 * time.Millisecond

// CodecOptions configures a Codec.
//
// A zero field takes its default. A negative PingInterval disables pings;
// a negative PongTimeout disables the read deadline (a silent peer is then
// kept forever); a negative MaxInflightCalls, ConnMemory or
// MaxCapsPerMessage disables that limit. ReadLimit, WriteTimeout and
// AssembleTimeout must not be negative.
type CodecOptions struct {
	ReadLimit    int64         // max bytes per message; default 16 MiB
	PingInterval time.Duration // default 30s
	PongTimeout  time.Duration // default 60s: max silence before the connection is closed
	WriteTimeout time.Duration // default 30s: per message and per control frame
	Logger       *slog.Logger  // nil: discard; used only for recovered panics
	// MaxInflightCalls caps the calls and bootstraps the peer may have
	// made and not yet had answered; one more closes the connection with
	// 1008. Default 1024 (DefaultMaxInflightCalls).
	MaxInflightCalls int
	// ConnMemory is this connection's memory budget in bytes: what the
	// vat holds for the peer (the message being read, calls in flight,
	// answers kept until the peer's Finish, frames queued for sending,
	// our calls to the peer awaiting its Return). Exceeding it closes the
	// connection with 1008. Default 64 MiB (DefaultConnMemory).
	ConnMemory int64
	// Pool, if set, is the server-wide budget every connection's bytes
	// are also counted against; exhausting it closes the connection that
	// asked with 1013 (try again later).
	Pool *MemoryPool
	// MaxCapsPerMessage caps the capability descriptors in one incoming
	// message; default 64. More closes the connection with 1008.
	MaxCapsPerMessage int
	// AssembleTimeout bounds how long one message may take to arrive
	// from its first frame to its last, pings between fragments
	// notwithstanding; default 30s. Exceeding it closes with 1008.
	AssembleTimeout time.Duration
	// OnLimit, if set, is called with the limit's name each time a limit
	// closes a connection (see the Limit* constants). It must not block.
	OnLimit func(limit string)
}

func (o CodecOptions) withDefaults() CodecOptions {
	if o.ReadLimit <= 0 {
		o.ReadLimit = DefaultReadLimit
	}
	if o.PingInterval == 0 {
		o.PingInterval = DefaultPingInterval
	}
	if o.PongTimeout == 0 {
		o.PongTimeout = DefaultPongTimeout
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = DefaultWriteTimeout
	}
	if o.MaxInflightCalls == 0 {
		o.MaxInflightCalls = DefaultMaxInflightCalls
	}
	if o.ConnMemory == 0 {
		o.ConnMemory = DefaultConnMemory
	}
	if o.MaxCapsPerMessage == 0 {
		o.MaxCapsPerMessage = DefaultMaxCapsPerMessage
	}
	if o.AssembleTimeout <= 0 {
		o.AssembleTimeout = DefaultAssembleTimeout
	}
	if o.OnLimit == nil {
		o.OnLimit = func(string) {}
	}
	o.Logger = orDiscard(o.Logger)
	return o
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
