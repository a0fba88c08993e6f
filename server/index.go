package server

import (
	"fmt"
	"html"
	"net/http"
	"strings"
)

// indexCSP is the Content-Security-Policy of the index page: no script,
// no style, nothing loaded.
const indexCSP = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// indexRoutes are the routes the index page names, in order.
var indexRoutes = [][2]string{
	{"/rpc", "Cap'n Proto RPC over WebSocket: the Go client, the sharevat CLI, any Cap'n Proto client"},
	{"/capnweb", "Cap'n Web (WebSocket, and HTTP batch for one-shot calls): TypeScript tools and the share page"},
	{"/s/", "the read-only share page (sharevat grant --scope read --link prints its links)"},
	{"/healthz", "liveness and readiness: 200 ok, or 503 while the store cannot be reached"},
	{"/metrics", "Prometheus metrics (never a token)"},
	{"/backup", "a consistent copy of the vault, for sharevat backup (admin token)"},
}

// indexDocs is where the index page points for more.
const indexDocs = "README.md, docs/guide.md, docs/operations.md and docs/deploy.md in the sharevat repository; sharevat help on the command line"

// index serves GET / (and HEAD /): a small page naming the
// routes and pointing to the docs, as HTML to a browser and as plain text
// to anything else. It carries no script and the share page's
// no-store, nosniff and no-referrer headers.
func index(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "sharevat: GET / shows what this server serves", http.StatusMethodNotAllowed)
		return
	}
	h := w.Header()
	h.Set("Content-Security-Policy", indexCSP)
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	if strings.Contains(r.Header.Get("Accept"), "text/html") {
		h.Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, indexHTML())
		return
	}
	h.Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprint(w, indexText())
}

// indexText is the plain-text index.
func indexText() string {
	var b strings.Builder
	b.WriteString("sharevat: a vat that keeps shared, append-only logs. Routes:\n\n")
	for _, r := range indexRoutes {
		fmt.Fprintf(&b, "  %-9s %s\n", r[0], r[1])
	}
	fmt.Fprintf(&b, "\nMore: %s.\n", indexDocs)
	return b.String()
}

// indexHTML is the HTML index.
func indexHTML() string {
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>sharevat</title></head><body>\n")
	b.WriteString("<h1>sharevat</h1>\n<p>A vat that keeps shared, append-only logs. It serves:</p>\n<dl>\n")
	for _, r := range indexRoutes {
		fmt.Fprintf(&b, "<dt><code>%s</code></dt><dd>%s</dd>\n", html.EscapeString(r[0]), html.EscapeString(r[1]))
	}
	fmt.Fprintf(&b, "</dl>\n<p>More: %s.</p>\n</body></html>\n", html.EscapeString(indexDocs))
	return b.String()
}
