package server

import (
	"log/slog"
	"os"
	"runtime/debug"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/vat"
)

// newRPCHandler serves the vat at /rpc with the peer limits of cfg.
func newRPCHandler(v *vat.Vat, cfg *Config, m *metrics, log *slog.Logger) *rpc.Handler {
	p := cfg.Peers
	opts := rpc.HandlerOptions{
		Bootstrap:         func(peer rpc.Peer) capnp.Client { return v.BootstrapMetered(peer.RemoteAddr, peer.Meter) },
		ReadLimit:         ReadLimit(cfg.Limits),
		AllowedOrigins:    cfg.Origins,
		Logger:            log,
		MaxConns:          p.MaxConns,
		MaxConnsPerIP:     p.MaxConnsPerIP,
		LoopbackExempt:    !p.PerIPLoopback,
		ConnMemory:        p.ConnMemory,
		Pool:              rpc.NewMemoryPool(p.MemoryBudget),
		MaxInflightCalls:  p.MaxInflight,
		MaxCapsPerMessage: p.MaxCapsPerMessage,
		AssembleTimeout:   p.AssembleTimeout,
		OnLimit:           m.LimitHit,
	}
	m.watchMemory(opts.Pool)
	return rpc.NewHandler(opts)
}

// SetMemoryLimit gives the Go runtime a soft memory limit that follows
// the memory budget (unless GOMEMLIMIT is set). It is the process's
// choice, not New's, since it holds for the whole process: the budget counts the
// bytes peers make the vat hold, and without a limit the garbage
// collector lets the heap grow to twice what is live before it runs, so
// bytes freed by closed connections would linger in RSS.
func SetMemoryLimit(budget int64, log *slog.Logger) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := budget*9/8 + 64<<20
	debug.SetMemoryLimit(limit)
	log.Debug("Go memory limit set from --memory-budget", "bytes", limit)
}
