package server

import (
	"log/slog"
	"net/http"

	"github.com/sharevat/sharevat/capnweb"
	webvat "github.com/sharevat/sharevat/door/capnweb"
	sharepage "github.com/sharevat/sharevat/door/page"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/vat"
)

// newWebHandler serves the vat's capability graph over Cap'n Web at
// /capnweb (docs/capnweb.md). It is the same vat as /rpc, so the same
// registry, rights checks, quotas and live revocation, with /rpc's
// limits: message size and assembly time, calls in flight, the memory
// budget of a connection and of all of them (--memory-budget, counted in
// the /rpc handler's pool, which evicts whoever holds the most on either
// door), the Origin rule.
func newWebHandler(v *vat.Vat, cfg *Config, rpcH *rpc.Handler, m *metrics, log *slog.Logger) *capnweb.Handler {
	origins := cfg.Origins
	var pool capnweb.Pool // --memory-budget: one budget for both doors
	if p := rpcH.Pool(); p != nil {
		pool = sharedPool{p}
	}
	return capnweb.NewHandler(capnweb.Options{
		Pool: pool,
		Main: func(p capnweb.Peer) capnweb.Target {
			return webvat.NewVault(v.BootstrapMetered(p.RemoteAddr, p.Meter))
		},
		ReadLimit:       ReadLimit(cfg.Limits),
		MaxInflight:     cfg.Peers.MaxInflight,
		AssembleTimeout: cfg.Peers.AssembleTimeout,
		ConnMemory:      cfg.Peers.ConnMemory,
		CheckOrigin:     func(r *http.Request) bool { return rpc.OriginAllowed(origins, r) },
		Logger:          log,
		OnLimit:         func(limit string) { m.LimitHit("capnweb-" + limit) },
	})
}

// admitted counts every Cap'n Web session, a WebSocket or an HTTP batch
// while it runs, against the /rpc handler's connection limits
// (--max-conns, --max-conns-per-ip): one limit for both doors.
func admitted(rpcH *rpc.Handler, web http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodPost {
			web.ServeHTTP(w, r) // 405
			return
		}
		done, refusal := rpcH.Admit(r)
		if done == nil {
			http.Error(w, refusal, http.StatusServiceUnavailable)
			return
		}
		defer done()
		web.ServeHTTP(w, r)
	})
}

// newPageHandler serves the read-only share page at /s/ (sharepage).
func newPageHandler(publicURL string) http.Handler {
	return sharepage.Handler(sharepage.Options{PublicURL: publicURL})
}

// sharedPool is the /rpc handler's memory pool as Cap'n Web's
// EvictingPool: a session joins it as a member, so that a charge on
// either door evicts the connection or session that holds the most.
type sharedPool struct{ *rpc.MemoryPool }

var _ capnweb.EvictingPool = sharedPool{}

func (p sharedPool) Join(m capnweb.PoolMember) (leave func()) { return p.MemoryPool.Join(m) }

func (p sharedPool) TakeFor(m capnweb.PoolMember, n int64) bool {
	return p.MemoryPool.TakeFor(m, n)
}
