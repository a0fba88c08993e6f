// Package page serves the read-only share page: a browser viewer of
// one share that follows the session live over the vat's Cap'n Web door
// (docs/capnweb.md). Its assets (assets/: index.html, the page's ES
// modules, including a small Cap'n Web client of its own, and
// style.css) are embedded in the binary: no CDN, no build step.
//
// # Links
//
// A link is <base>/s/#<token>, e.g.
//
//	https://vat.example.com/s/#svt1_…
//
// The token is in the URL fragment, so it never reaches the server's
// logs, proxies or a Referer header: the page reads it from
// location.hash and sends it only inside its own WebSocket, to
// /capnweb on the page's origin (ws: for http, wss: for https), where it
// calls Vault.restore(token), Share.reader(), Reader.snapshotPage("byChange",
// …) (the state newest first, a bounded page at a time, as many as fill
// the first screen and then one more each time the reader scrolls to the
// oldest message loaded), Reader.read (the events of the last ops) and
// Reader.subscribe(head, sink). It keeps only the messages near the
// screen in the DOM (assets/timeline.js) and applies live ops by the
// state's version rule (assets/version.js). It reconnects with backoff after a
// drop, resuming from the last cursor it applied, and when the link
// dies (subscription end "revoked", restore "unauthorized") it says so
// and clears everything it showed. `sharevat grant --scope read --link`
// prints such a link.
//
// # Mounting
//
// Handler serves every path under /s/ (mount it with
// mux.Handle("/s/", sharepage.Handler(o)); it accepts the paths with or
// without the /s prefix stripped, and redirects exactly /s to /s/):
//
//	GET /s/            index.html
//	GET /s/<asset>     the page's scripts and stylesheet
//	GET /s/base        {"base":"https://vat.example.com"}: the link base
//
// Everything else under /s/ is 404, a method other than GET or HEAD is
// 405. The base is Options.PublicURL (serve --public-url) when set, else
// derived from the request: https when it came over TLS or with
// X-Forwarded-Proto: https, http otherwise, and its Host header (which
// the server's Host guard has already checked). `sharevat grant --link`
// asks /s/base; a server too old to answer it gets the base derived from
// the CLI's --server URL (wss://host/rpc → https://host).
//
// # Security
//
// Every response carries Cache-Control: no-store, Referrer-Policy:
// no-referrer, X-Content-Type-Options: nosniff and a Content-Security-
// Policy that allows only the page's own scripts, styles and
// connections (no inline script or style, no other origin, no framing,
// and Trusted Types with no policy, so no string can reach an HTML
// sink). Op content is untrusted: the page renders it with text nodes
// only, never as HTML.
package page
