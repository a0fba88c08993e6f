package server

import (
	"context"
	"log/slog"
	"net/http"
	"path"
	"path/filepath"
	"strings"

	"github.com/sharevat/sharevat"
	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/vat"
)

// newDoor builds the opencode door (docs/opencode.md): the vat's own
// capabilities behind opencode's REST share API, counted against the
// /rpc handler's connection limits and memory budget like /capnweb.
// Its session index is the store's (every vat on the store shares it);
// an index file an older build left in the data directory is moved into
// it first.
func newDoor(ctx context.Context, v *vat.Vat, db sharevat.SessionIndex, pepper []byte, cfg *Config, rpcH *rpc.Handler, log *slog.Logger) (*opencodeshare.Door, error) {
	if err := opencodeshare.ImportIndexFile(ctx, db, filepath.Join(cfg.Data, opencodeshare.IndexFile)); err != nil {
		return nil, err
	}
	o := opencodeshare.Options{
		Vat: v, Pepper: pepper, Index: db,
		PublicURL: cfg.PublicURL, Open: cfg.OpencodeOpen, OpenPerAddr: cfg.OpencodeOpenPerAddr, OpenTotal: cfg.OpencodeOpenTotal, Limits: cfg.Limits, MaxBody: cfg.OpencodeMaxBody, StateBytes: cfg.OpencodeStateBytes,
		BodyTimeout: cfg.Peers.AssembleTimeout, Admit: rpcH.Admit, Logger: log,
	}
	if p := rpcH.Pool(); p != nil {
		o.Budget = p
		o.CallerShare = p.Limit() / 4 // one caller (a grant, an address) holds at most a quarter
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

// doorPrefixes are the paths of the opencode door and its share page,
// which may carry a token.
var doorPrefixes = []string{"/opencode/", "/api/share", "/share/", opencodeshare.TokensPath}

// doorPaths gives every answer on a door path the door's headers
// (no-store, no-referrer), the Host guard's refusals included, and
// answers a door path that is not clean (a dot segment, a doubled
// slash) 404 itself: the mux would redirect it to its clean form,
// repeating a creation token in Location. A path is a door path when
// it or its clean form has a door's prefix (/x/../opencode/<token>/…
// too).
func doorPaths(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if !hasDoorPrefix(p) && !hasDoorPrefix(path.Clean(p)) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Cache-Control", "no-store")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		if c := path.Clean(p); c != p && c+"/" != p {
			h.Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":"notFound: no such route"}` + "\n"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

func hasDoorPrefix(p string) bool {
	for _, pre := range doorPrefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	return false
}
