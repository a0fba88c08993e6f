package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// validateOpen refuses --open on a listener beyond loopback, where it
// would let anyone who reaches the address (or, through DNS rebinding,
// any web page one of them visits) create shares, unless
// --open-beyond-loopback says so on purpose, and then only with
// --allowed-hosts, which defeats DNS rebinding.
func (f *serveFlags) validateOpen() error {
	switch {
	case f.openWide && !f.open:
		return usagef("--open-beyond-loopback goes with --open")
	case !f.open || listenLoopback(f.listen):
		return nil
	case !f.openWide:
		return usagef("--open lets anyone who reaches --listen create shares, and %s is not a loopback address: "+
			"listen on 127.0.0.1 (the default), or drop --open and create shares with the admin token "+
			"(to open the vat to the network on purpose, add --open-beyond-loopback and --allowed-hosts)", f.listen)
	case f.peers.allowedHosts == "":
		return usagef("--open-beyond-loopback needs --allowed-hosts (the names this vat answers to): " +
			"without it any web page can reach the vat through DNS rebinding and create shares")
	}
	return nil
}

// checkOpenListener repeats validateOpen's rule on the address the
// listener got (a name such as localhost may resolve beyond loopback),
// and warns when --open-beyond-loopback is in effect.
func (f *serveFlags) checkOpenListener(addr net.Addr, log *slog.Logger) error {
	if !f.open || loopbackAddr(addr) {
		return nil
	}
	if !f.openWide {
		return usagef("--open on %s, which is not a loopback address: listen on 127.0.0.1 or add --open-beyond-loopback", addr)
	}
	log.Warn("--open-beyond-loopback: anyone who can reach this address may create shares", "listen", addr.String())
	return nil
}

// listenLoopback reports whether a --listen address names loopback
// ("localhost" or a loopback IP address; an empty host is every
// interface).
func listenLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	return err == nil && isLoopback(host)
}

// msgOriginScheme answers a request whose Origin has the wrong scheme.
const msgOriginScheme = "sharevat: origin not allowed: its scheme is not this listener's " +
	"(behind a TLS proxy, have it send X-Forwarded-Proto: https, or set serve --public-url https://…)\n"

// originGuard refuses (403) a request whose Origin header has a scheme
// that cannot be this server's: an https:// page is not served by a
// plain-http listener, nor an http:// one by a TLS listener. Such a
// request comes from another site (a DNS-rebinding page, say) even when
// its Origin names the request's Host. A plain listener accepts https://
// Origins behind a TLS proxy: when the request carries X-Forwarded-Proto:
// https (a browser page cannot set it on a WebSocket, and on an HTTP
// batch only after a preflight the vat refuses) or when publicHTTPS
// (--public-url is https). Origins listed in --origins ("*": any) pass as
// they are; the doors then apply their own Origin rule.
func originGuard(listed []string, publicHTTPS bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" && !originSchemeOK(origin, listed, publicHTTPS, r) {
			http.Error(w, msgOriginScheme, http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// originSchemeOK applies originGuard's rule to one Origin.
func originSchemeOK(origin string, listed []string, publicHTTPS bool, r *http.Request) bool {
	for _, a := range listed {
		if a = strings.TrimSpace(a); a == "*" || strings.EqualFold(a, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return r.TLS != nil || publicHTTPS || forwardedHTTPS(r)
	case "http":
		return r.TLS == nil
	}
	return false
}

// forwardedHTTPS reports whether a proxy in front says the client came
// over https.
func forwardedHTTPS(r *http.Request) bool {
	return strings.EqualFold(strings.TrimSpace(r.Header.Get("X-Forwarded-Proto")), "https")
}

// publicHTTPS reports whether --public-url is an https:// URL.
func publicHTTPS(publicURL string) bool {
	u, err := url.Parse(publicURL)
	return err == nil && strings.EqualFold(u.Scheme, "https")
}
