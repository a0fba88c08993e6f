package page

import (
	"embed"
	"encoding/json"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var assetFS embed.FS

// Options configure Handler.
type Options struct {
	// PublicURL is the base URL users reach the server at (serve
	// --public-url), e.g. "https://vat.example.com"; links are
	// PublicURL + "/s/#<token>". "" derives it from each request.
	PublicURL string
}

// CSP is the Content-Security-Policy of every response.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; " +
	"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
	"require-trusted-types-for 'script'; trusted-types 'none'"

// contentTypes maps an asset's extension to its Content-Type.
var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
}

// handler serves the page.
type handler struct {
	opts   Options
	assets map[string][]byte // name (e.g. "app.js") -> content
}

// Handler returns the share page's handler (see the package comment for
// its paths and headers).
func Handler(o Options) http.Handler {
	h := &handler{opts: o, assets: map[string][]byte{}}
	entries, err := fs.ReadDir(assetFS, "assets")
	if err != nil {
		panic("sharepage: embedded assets: " + err.Error())
	}
	for _, e := range entries {
		b, err := assetFS.ReadFile("assets/" + e.Name())
		if err != nil {
			panic("sharepage: embedded asset: " + err.Error())
		}
		h.assets[e.Name()] = b
	}
	return h
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setHeaders(w.Header())
	if r.URL.Path == "/s" {
		http.Redirect(w, r, "/s/", http.StatusMovedPermanently)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := assetName(r.URL.Path)
	if name == "base" {
		h.serveBase(w, r)
		return
	}
	h.serveAsset(w, r, name)
}

// assetName is the part of p after /s/ ("index.html" for the page).
func assetName(p string) string {
	p = strings.TrimPrefix(p, "/s/")
	p = strings.TrimPrefix(p, "/")
	if p == "" {
		return "index.html"
	}
	return p
}

func (h *handler) serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	b, ok := h.assets[name]
	ctype, known := contentTypes[path.Ext(name)]
	if !ok || !known || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", ctype)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(b)
	}
}

// serveBase answers the link base as {"base": "…"}.
func (h *handler) serveBase(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	b, _ := json.Marshal(map[string]string{"base": h.base(r)})
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(append(b, '\n'))
	}
}

// base is Options.PublicURL, or the request's scheme and Host.
func (h *handler) base(r *http.Request) string {
	if h.opts.PublicURL != "" {
		return strings.TrimRight(h.opts.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https") {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// setHeaders sets the security headers every response carries.
func setHeaders(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
}
