package server

import (
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"

	"sharevat/opencodeshare"
	"sharevat/rpc"
	"sharevat/vat"
)

// newDoor builds the opencode door (docs/opencode.md): the vat's own
// capabilities behind opencode's REST share API, counted against the
// /rpc handler's connection limits and memory budget like /capnweb.
func newDoor(v *vat.Vat, pepper []byte, cfg *Config, rpcH *rpc.Handler, log *slog.Logger) (*opencodeshare.Door, error) {
	o := opencodeshare.Options{
		Vat: v, Pepper: pepper, Index: filepath.Join(cfg.Data, opencodeshare.IndexFile),
		PublicURL: cfg.PublicURL, Open: cfg.OpencodeOpen, Limits: cfg.Limits, MaxBody: cfg.OpencodeMaxBody,
		BodyTimeout: cfg.Peers.AssembleTimeout, Admit: rpcH.Admit, Logger: log,
	}
	if p := rpcH.Pool(); p != nil {
		o.Budget = p
	}
	return opencodeshare.New(o)
}

// sharePathPage serves the share page at /share/<slug>, the link the
// opencode door answers: the page (index.html) for a slug, and its
// assets at /share/<asset>, which the page's relative URLs reach. The
// page reads the slug from the path (sharepage/assets/app.js).
func sharePathPage(page http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/share/")
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/s/"
		if strings.Contains(name, ".") && !strings.Contains(name, "/") {
			r2.URL.Path = "/s/" + name // an asset: app.js, style.css, …
		}
		r2.URL.RawPath = ""
		page.ServeHTTP(w, r2)
	})
}
