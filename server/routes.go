package server

import (
	"fmt"
	"net"
	"net/http"

	"github.com/sharevat/sharevat"
	opencodeshare "github.com/sharevat/sharevat/door/opencode"
)

// Handler is every route of the server for a listener at addr, behind
// the Host guard (which names it serves depends on whether addr is
// loopback) and the Origin guard. Serve uses it; a test may mount it on
// a server of its own.
func (s *Server) Handler(addr net.Addr) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/rpc", s.rpc)
	mux.HandleFunc("/healthz", healthz(s.db))
	mux.Handle("/metrics", s.metrics.handler())
	mux.Handle("/backup", s.db.backupRoute(s.vat, s.log))
	mux.Handle("/capnweb", admitted(s.rpc, s.web))
	mux.Handle("/mcp", s.newMCPHandler()) // mcp.go
	page := newPageHandler(s.cfg.PublicURL)
	mux.Handle("/s/", page)
	mux.Handle("/s", page)
	mux.Handle("/api/share", s.door) // opencode.go
	mux.Handle("/api/share/", s.door)
	mux.Handle("/opencode/", s.door)
	mux.Handle("/share/", s.door.Page(sharePathPage(page))) // 404 once unshared
	mux.Handle(opencodeshare.TokensPath, s.door.Tokens())
	mux.Handle(opencodeshare.TokensPath+"/", s.door.Tokens())
	mux.HandleFunc("/{$}", index) // index.go
	hosts, loopback := allowedHosts(s.cfg.Peers.AllowedHosts, addr.String())
	return doorPaths(hostGuard(hosts, loopback, originGuard(s.cfg.Origins, publicHTTPS(s.cfg.PublicURL), mux))) // opencode.go
}

// healthz answers 200 "ok" while the store answers a (cheap) lookup.
func healthz(db sharevat.Store) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if _, err := db.Share(r.Context(), "healthz"); err != nil && sharevat.ErrorCode(err) != sharevat.ENotFound {
			http.Error(w, "store unavailable", http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "ok")
	}
}

// allowedHosts returns the Host names requests may carry and whether
// loopback addresses are allowed too: listed, or, when listening on
// loopback, "localhost" and the loopback addresses; nil: any.
func allowedHosts(listed []string, listen string) ([]string, bool) {
	if len(listed) > 0 {
		return listed, false
	}
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return nil, false
	}
	if IsLoopback(host) {
		return []string{"localhost"}, true
	}
	return nil, false
}
