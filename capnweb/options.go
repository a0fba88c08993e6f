package capnweb

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Options configure a Handler (and, for the limits, a Client).
type Options struct {
	// Main returns the main interface (id 0) of each session. Required
	// for a Handler.
	Main func(Peer) Target
	// ReadLimit is the largest message: one WebSocket frame, one batch
	// line. Default 16 MiB.
	ReadLimit int64
	// BatchLimit is the largest HTTP batch request body. Default
	// 4*ReadLimit.
	BatchLimit int64
	// MaxDepth is the deepest nesting of arrays and objects in one
	// message. Default 64.
	MaxDepth int
	// MaxImports bounds the entries of a session's import table (stubs
	// and promises the peer exported). Default 10000.
	MaxImports int
	// MaxExports bounds the entries of a session's export table (answers
	// and objects held for the peer). Default 10000.
	MaxExports int
	// MaxInflight bounds the peer's pushes not yet resolved, and the
	// pushes of one HTTP batch (checked before it runs). Default 1024.
	MaxInflight int
	// ConnMemory is each session's memory budget in bytes: messages being
	// handled, answers kept until released, frames queued for sending, and
	// whatever the Target side charges to Peer.Meter. Default 64 MiB.
	ConnMemory int64
	// Pool, if set, is a server-wide budget every session's bytes are
	// also counted against; a Charge it cannot take closes that session
	// as its own budget would. A Pool that is also an EvictingPool makes
	// room first: each session and batch joins it, and the one holding
	// the most is closed (1013, try again later) for a charge that does
	// not fit.
	Pool Pool
	// CheckOrigin decides whether a request may open a session; false
	// answers 403. nil: a request with an Origin header must name the
	// request's Host in it.
	CheckOrigin func(*http.Request) bool
	// AssembleTimeout bounds the time from a message's first frame to its
	// last (pings in between do not extend it): a peer cannot hold a
	// message half-sent. Default 30s.
	AssembleTimeout time.Duration
	// PingInterval is how often a WebSocket is pinged; a peer silent for
	// twice as long is gone. Default 30s.
	PingInterval time.Duration
	// WriteTimeout bounds each WebSocket write. Default 30s.
	WriteTimeout time.Duration
	// Logger receives session events (never message contents). nil:
	// discard.
	Logger *slog.Logger
	// OnLimit is called with the limit's short name ("read-limit",
	// "depth", "imports", "exports", "inflight", "memory", "server-memory":
	// evicted by an EvictingPool, "malformed")
	// each time a limit closes a session. It must not block.
	OnLimit func(limit string)
}

// withDefaults returns o with every zero field set to its default.
func (o Options) withDefaults() *Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxDepth, 64)
	def(&o.MaxImports, 10000)
	def(&o.MaxExports, 10000)
	def(&o.MaxInflight, 1024)
	if o.ReadLimit <= 0 {
		o.ReadLimit = 16 << 20
	}
	if o.BatchLimit <= 0 {
		o.BatchLimit = 4 * o.ReadLimit
	}
	if o.ConnMemory <= 0 {
		o.ConnMemory = 64 << 20
	}
	if o.AssembleTimeout <= 0 {
		o.AssembleTimeout = 30 * time.Second
	}
	if o.PingInterval <= 0 {
		o.PingInterval = 30 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 30 * time.Second
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &o
}

// Peer describes the other end of a session.
type Peer struct {
	RemoteAddr, Origin, UserAgent string
	// Meter is the session's memory budget: the Target side charges the
	// answers it builds to it. Never nil for sessions the Handler makes.
	Meter Meter
}

// Meter is a memory budget (the method set of sharevat/vat.Meter).
// Charge fails, and the session is closed, when n does not fit.
type Meter interface {
	Charge(n int64) error
	Release(n int64)
}

// meterKey keys the session's budget in the context its Targets' calls
// receive.
type meterKey struct{}

func withMeter(ctx context.Context, m *budget) context.Context {
	if m == nil {
		return ctx
	}
	return context.WithValue(ctx, meterKey{}, Meter(m))
}

// SessionMeter returns the memory budget of the session that made the
// call whose context is ctx (the one Target.Call receives), nil for any
// other context. An Answer charges to it what it holds while it builds
// its value (Peer.Meter is the same budget); the value it returns is
// then charged by the session while it is kept.
func SessionMeter(ctx context.Context) Meter {
	m, _ := ctx.Value(meterKey{}).(Meter)
	return m
}
