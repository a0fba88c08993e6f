package server

import (
	"net"
	"net/http"
	"net/url"
	"strings"
)

// hostGuard refuses (421 Misdirected Request) every request whose Host
// header names none of allowed; allowed nil lets every request through.
// It defeats DNS rebinding: a web page on evil.example whose name is made
// to resolve to 127.0.0.1 reaches a loopback vat with "Host:
// evil.example", and its Origin then matches that Host. When loopback is
// set, any loopback IP address is allowed too.
// msgHostRefused answers a request for a Host this vat does not serve.
// It quotes no part of the Host: a token pasted where a server name
// belongs would otherwise come back in the answer (and in whatever logs
// it).
const msgHostRefused = "sharevat: the Host of this request is not served here (serve --allowed-hosts lists the names this vat answers to)\n"

func hostGuard(allowed []string, loopback bool, next http.Handler) http.Handler {
	if allowed == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, allowed, loopback) {
			http.Error(w, msgHostRefused, http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func hostAllowed(hostport string, allowed []string, loopback bool) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if ip := net.ParseIP(host); loopback && ip != nil && ip.IsLoopback() {
		return true
	}
	for _, a := range allowed {
		if strings.EqualFold(strings.Trim(strings.TrimSpace(a), "[]"), host) {
			return true
		}
	}
	return false
}

// IsLoopback reports whether host (no port) is "localhost" or a loopback
// IP address.
func IsLoopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
}

// LoopbackAddr reports whether a listener at addr is reachable from this
// machine only.
func LoopbackAddr(addr net.Addr) bool {
	host, _, err := net.SplitHostPort(addr.String())
	return err == nil && IsLoopback(host)
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
