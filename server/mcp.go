package server

import (
	"net/http"

	"capnproto.org/go/capnp/v3"

	"sharevat/mcpdoor"
)

// newMCPHandler serves the Model Context Protocol over Streamable HTTP
// at /mcp (docs/mcp.md): the same vat as /rpc, each session on its own
// bootstrap (the same registry, rights checks, quotas and live
// revocation), each request counted against /rpc's connection limits
// (admitted) and bounded by its message size limit.
func (s *Server) newMCPHandler() http.Handler {
	h := mcpdoor.NewHTTPHandler(mcpdoor.HTTPOptions{
		Bootstrap:       func(peer string) capnp.Client { return s.vat.Bootstrap(peer) },
		MaxRequestBytes: ReadLimit(s.cfg.Limits),
		Logger:          s.log,
	})
	return admitted(s.rpc, h)
}
