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
)

// closeGrace bounds how long Close waits for the peer to answer our close
// frame before it drops the TCP connection.
const closeGrace = 2 * time.Second

// CodecOptions configures a Codec.
//
// A zero field takes its default. A negative PingInterval disables pings;
// a negative PongTimeout disables the read deadline (a silent peer is then
// kept forever); a negative MaxInflightCalls disables the cap on calls in
// flight. ReadLimit and WriteTimeout must not be negative.
type CodecOptions struct {
	ReadLimit    int64         // max bytes per message; default 16 MiB
	PingInterval time.Duration // default 30s
	PongTimeout  time.Duration // default 60s: max silence before the connection is closed
	WriteTimeout time.Duration // default 30s: per message and per control frame
	Logger       *slog.Logger  // nil: discard; used only for recovered panics
	// MaxInflightCalls caps the calls the peer may have made and not yet
	// had answered; one more closes the connection with 1008. Default
	// 1024 (DefaultMaxInflightCalls).
	MaxInflightCalls int
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
	o.Logger = orDiscard(o.Logger)
	return o
}

func orDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
