package main

import (
	"net"
	"net/http"
	"strings"
)

// hostGuard refuses (421 Misdirected Request) every request whose Host
// header names none of allowed; allowed nil lets every request through.
// It defeats DNS rebinding: a web page on evil.example whose name is made
// to resolve to 127.0.0.1 reaches a loopback vat with "Host:
// evil.example", and its Origin then matches that Host. When loopback is
// set, any loopback IP address is allowed too.
func hostGuard(allowed []string, loopback bool, next http.Handler) http.Handler {
	if allowed == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r.Host, allowed, loopback) {
			http.Error(w, "sharevat: host "+quoteHost(r.Host)+" is not served here (serve --allowed-hosts lists the names this vat answers to)", http.StatusMisdirectedRequest)
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

// quoteHost quotes a Host header for an error message, cut short.
func quoteHost(h string) string {
	if len(h) > 64 {
		h = h[:64] + "…"
	}
	return `"` + strings.ToValidUTF8(h, "?") + `"`
}

// isLoopback reports whether host (no port) is "localhost" or a loopback
// IP address.
func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
}
