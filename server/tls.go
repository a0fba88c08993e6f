package server

import (
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
)

// loadTLS loads the certificate and key; nil when cert is "". New runs
// it first, so a bad file fails the start before anything is written.
func loadTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("tls: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// useTLS makes srv serve cfg's certificate over HTTP/1.1 only: a
// WebSocket upgrade needs HTTP/1.1, and a non-nil TLSNextProto keeps
// net/http from offering HTTP/2.
func useTLS(srv *http.Server, cfg *tls.Config) {
	srv.TLSConfig = cfg
	srv.TLSNextProto = map[string]func(*http.Server, *tls.Conn, http.Handler){}
}

// ServeURL is the URL a client on this machine can dial for a listener at
// addr, and whether addr is every interface (0.0.0.0 or ::), which no
// client can dial: then the URL names 127.0.0.1.
func ServeURL(addr net.Addr, secure bool) (url string, all bool) {
	scheme := "ws://"
	if secure {
		scheme = "wss://"
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + addr.String() + "/rpc", false
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host, all = "127.0.0.1", true
	}
	return scheme + net.JoinHostPort(host, port) + "/rpc", all
}

// announce logs and prints where the server serves, and warns when it
// listens beyond loopback without TLS.
func announce(w io.Writer, addr net.Addr, secure bool, data string, log *slog.Logger) {
	url, all := ServeURL(addr, secure)
	if !secure && !LoopbackAddr(addr) {
		log.Warn("listening beyond loopback without TLS: tokens cross the network in clear; use --tls-cert/--tls-key or a TLS proxy", "listen", addr.String())
	}
	log.Info("serving", "url", url, "listen", addr.String(), "all_interfaces", all, "data", filepath.Clean(data))
	if all {
		fmt.Fprintf(w, "sharevat: listening on all interfaces (%s)\n", addr)
	}
	fmt.Fprintf(w, "sharevat: serving on %s\n", url)
}
