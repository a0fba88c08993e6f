// Package servertest starts the whole sharevat server (package server)
// in-process: a real bbolt file in a temporary directory, a real
// loopback listener, and every route (/rpc, /capnweb, /s/, /healthz,
// /metrics, /backup, /) behind the same guards as `sharevat serve`, so
// the race detector sees the client and the server at once. Only tests
// import it; internal/proctest runs the real binary where signals,
// crashes or the binary itself are the subject.
package servertest

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/server"
)

// Options adjust the server Start builds; the zero value is fine.
type Options struct {
	// Config, if set, adjusts the configuration (server.DefaultConfig on
	// a temporary data directory, logging at debug level) before New.
	Config func(*server.Config)
}

// Server is a running in-process server.
type Server struct {
	*server.Server
	URL   string           // ws://127.0.0.1:port/rpc, as `sharevat serve` prints it
	HTTP  string           // http://127.0.0.1:port, the base of the plain routes
	Data  string           // the data directory
	Admin string           // the admin token, from Data/admin.token
	Log   *vattest.SyncBuf // everything the server logged and printed
}

// Start builds a server on a fresh data directory, serves it on a free
// loopback port, and closes it at tb's cleanup, failing tb if Serve or
// Close report an error.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	log := &vattest.SyncBuf{}
	cfg := server.DefaultConfig(tb.TempDir())
	cfg.Logger = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.Stderr = log
	if opts.Config != nil {
		opts.Config(&cfg)
	}
	ln, err := server.Listen("127.0.0.1:0")
	require.NoError(tb, err)
	srv, err := server.New(context.Background(), cfg)
	if err != nil {
		ln.Close()
		require.NoError(tb, err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		require.NoError(tb, srv.Close(ctx))
		require.NoError(tb, <-served)
	})
	admin, err := os.ReadFile(filepath.Join(cfg.Data, server.AdminFile))
	require.NoError(tb, err)
	scheme := "ws"
	if cfg.TLSCert != "" {
		scheme = "wss"
	}
	url, _ := server.ServeURL(ln.Addr(), scheme == "wss")
	return &Server{Server: srv, URL: url, HTTP: "http" + strings.TrimSuffix(strings.TrimPrefix(url, "ws"), "/rpc"),
		Data: cfg.Data, Admin: strings.TrimSpace(string(admin)), Log: log}
}
