package server

import (
	"net/http"

	"capnproto.org/go/capnp/v3"

	mcpdoor "github.com/sharevat/sharevat/door/mcp"
	"github.com/sharevat/sharevat/internal/version"
	"github.com/sharevat/sharevat/rpc"
)

// newMCPHandler serves the Model Context Protocol over Streamable HTTP
// at /mcp (docs/mcp.md): the same vat as /rpc, behind the gate
// (door/gate): each request counted against /rpc's connection limits
// (admitted) and under its Origin rule (a browser page of another origin
// is refused 403), then bounded by its message size limit, its bearer
// token redeemed before its body is read, its body charged to the one
// memory budget (no grant more than a quarter of it), its live sessions
// bounded and charged too.
func (s *Server) newMCPHandler() http.Handler {
	o := mcpdoor.HTTPOptions{
		Bootstrap:       func(peer string) capnp.Client { return s.vat.Bootstrap(peer) },
		MaxRequestBytes: ReadLimit(s.cfg.Limits),
		Logger:          s.log,
		BodyTimeout:     s.cfg.Peers.AssembleTimeout,
		Options:         mcpdoor.Options{Limits: s.cfg.Limits, Version: version.String()},
	}
	if p := s.rpc.Pool(); p != nil {
		o.Budget = p // bodies, and each live session mcpdoor.DefaultSessionMemory
		o.CallerShare = p.Limit() / 4
	}
	h := mcpdoor.NewHTTPHandler(o)
	origins := s.cfg.Origins
	return admitted(s.rpc, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !rpc.OriginAllowed(origins, r) {
			http.Error(w, "origin not allowed", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
}
