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

// isLoopback reports whether host (no port) is "localhost" or a loopback
// IP address.
func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return strings.EqualFold(host, "localhost") || (ip != nil && ip.IsLoopback())
}
