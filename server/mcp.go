package server

import (
	"net/http"

	"capnproto.org/go/capnp/v3"

	mcpdoor "github.com/sharevat/sharevat/door/mcp"
	"github.com/sharevat/sharevat/internal/version"
	"github.com/sharevat/sharevat/rpc"
)

// newMCPHandler serves the Model Context Protocol over Streamable HTTP
// at /mcp (docs/mcp.md): the same vat as /rpc, each session on its own
// bootstrap (the same registry, rights checks, quotas and live
// revocation), each request counted against /rpc's connection limits
// (admitted), bounded by its message size limit, its live sessions
// bounded and charged to the memory budget, and under its Origin
// rule (a browser page of another origin is refused 403).
func (s *Server) newMCPHandler() http.Handler {
	o := mcpdoor.HTTPOptions{
		Options:         mcpdoor.Options{Version: version.String()},
		Bootstrap:       func(peer string) capnp.Client { return s.vat.Bootstrap(peer) },
		MaxRequestBytes: ReadLimit(s.cfg.Limits),
		Logger:          s.log,
		BodyTimeout:     s.cfg.Peers.AssembleTimeout,
	}
	if p := s.rpc.Pool(); p != nil {
		o.Budget = p // each live session is charged mcpdoor.DefaultSessionMemory
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
