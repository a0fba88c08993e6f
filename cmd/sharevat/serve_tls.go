package main

import (
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"

	"github.com/spf13/pflag"
)

// tlsFlags are serve's flags for serving TLS itself (wss:// and https://).
type tlsFlags struct {
	cert string
	key  string
}

func (t *tlsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.cert, "tls-cert", "", "serve TLS (wss://) with this PEM certificate chain; needs --tls-key")
	fs.StringVar(&t.key, "tls-key", "", "PEM private key of --tls-cert")
}

// on reports whether TLS is asked for.
func (t *tlsFlags) on() bool { return t.cert != "" }

// validate wants both files or neither.
func (t *tlsFlags) validate() error {
	if (t.cert == "") != (t.key == "") {
		return usagef("--tls-cert and --tls-key go together: give both or neither")
	}
	return nil
}

// config loads the certificate and key; nil when TLS is off. It runs
// before the server listens, so a bad file fails the start at once.
func (t *tlsFlags) config() (*tls.Config, error) {
	if !t.on() {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(t.cert, t.key)
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

// serveURL is the URL a client on this machine can dial for a listener at
// addr, and whether addr is every interface (0.0.0.0 or ::), which no
// client can dial: then the URL names 127.0.0.1.
func serveURL(addr net.Addr, secure bool) (url string, all bool) {
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

// loopbackAddr reports whether the listener at addr is reachable from
// this machine only.
func loopbackAddr(addr net.Addr) bool {
	host, _, err := net.SplitHostPort(addr.String())
	return err == nil && isLoopback(host)
}

// announce logs and prints where the server serves, and warns when it
// listens beyond loopback without TLS.
func announce(env *Env, addr net.Addr, secure bool, data string, log *slog.Logger) {
	url, all := serveURL(addr, secure)
	if !secure && !loopbackAddr(addr) {
		log.Warn("listening beyond loopback without TLS: tokens cross the network in clear; use --tls-cert/--tls-key or a TLS proxy", "listen", addr.String())
	}
	log.Info("serving", "url", url, "listen", addr.String(), "all_interfaces", all, "data", filepath.Clean(data))
	if all {
		fmt.Fprintf(env.Stderr, "sharevat: listening on all interfaces (%s)\n", addr)
	}
	fmt.Fprintf(env.Stderr, "sharevat: serving on %s\n", url)
}
