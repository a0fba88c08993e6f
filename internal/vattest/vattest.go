// Package vattest builds a whole sharevat server in-process for tests: a
// real bbolt file in a temporary directory (or a PostgreSQL database, when
// Options.DSN names one), the vat, and the WebSocket handler on a real
// loopback HTTP server, with helpers to dial, create shares and redeem
// tokens. Only tests import it.
package vattest

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/pg"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/vat"
)

// Options adjust the server Start builds; the zero value is fine.
type Options struct {
	// Wrap, if set, wraps the store the vat uses (fault injection).
	Wrap func(sharevat.Store) sharevat.Store
	// Config, if set, adjusts the vat's Config before New.
	Config func(*vat.Config)
	// DSN, if set, is a PostgreSQL database (pgtest.DB) the vat keeps its
	// vault in, through store/pg, instead of a bbolt file.
	DSN string
	// Bolt, if set, are the bbolt store's options (e.g. a write-ahead
	// log applied only every hour, so reads are served from the log).
	Bolt bolt.Options
	// Handler, if set, adjusts the /rpc handler's options (its memory
	// budgets, say) before NewHandler.
	Handler func(*rpc.HandlerOptions)
}

// Server is a running in-process vat.
type Server struct {
	URL   string         // ws://127.0.0.1:port/rpc
	Addr  string         // 127.0.0.1:port, for a fault proxy
	Vat   *vat.Vat       //
	Store sharevat.Store // the store as the vat sees it (wrapped, if Wrap was given)
	Admin string         // the admin token
	Log   *SyncBuf       // everything the vat and the transport logged, at debug level
	Dir   string         // the data directory (empty of the vault on PostgreSQL)
}

// Start builds and starts a Server; tb's cleanup stops it.
func Start(tb testing.TB, opts Options) *Server {
	tb.Helper()
	s, stop, err := Serve(opts)
	require.NoError(tb, err)
	tb.Cleanup(stop)
	return s
}

// Serve builds and starts a Server, like Start, for code without a
// testing.TB (runnable examples). stop closes the connections, the HTTP
// server, the vat and the store, and removes the data directory.
func Serve(opts Options) (s *Server, stop func(), err error) {
	s = &Server{Log: &SyncBuf{}}
	var stops []func()
	stop = func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	if s.Dir, err = os.MkdirTemp("", "sharevat-vattest-"); err != nil {
		return nil, nil, err
	}
	stops = append(stops, func() { os.RemoveAll(s.Dir) })
	db, err := openStore(s.Dir, opts.DSN, opts.Bolt)
	if err != nil {
		return nil, nil, err
	}
	stops = append(stops, func() { db.Close() })
	s.Store = db
	if opts.Wrap != nil {
		s.Store = opts.Wrap(db)
	}
	logger := slog.New(slog.NewTextHandler(s.Log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if s.Vat, err = newVat(s.Store, logger, opts.Config); err != nil {
		return nil, nil, err
	}
	var closeHTTP func()
	s.URL, closeHTTP = startHTTP(s.Vat, logger, opts.Handler)
	stops = append(stops, closeHTTP)
	m, err := s.Vat.MintAdminToken(context.Background())
	if err != nil {
		return nil, nil, err
	}
	s.Admin = m.Token
	s.Addr = strings.TrimSuffix(strings.TrimPrefix(s.URL, "ws://"), "/rpc")
	return s, stop, nil
}

// openStore opens the bbolt file in dir, or the PostgreSQL database dsn
// when it is set; bo are the bbolt file's options.
func openStore(dir, dsn string, bo bolt.Options) (sharevat.Store, error) {
	if dsn != "" {
		st, err := pg.Open(context.Background(), dsn, pg.Options{})
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	return bolt.Open(filepath.Join(dir, "sharevat.db"), bo)
}

func newVat(st sharevat.Store, logger *slog.Logger, adjust func(*vat.Config)) (*vat.Vat, error) {
	pepper, err := sturdyref.NewPepper(rand.Reader)
	if err != nil {
		return nil, err
	}
	ver, err := sturdyref.NewVerifier(pepper)
	if err != nil {
		return nil, err
	}
	cfg := vat.Config{Store: st, Verifier: ver, Logger: logger}
	if adjust != nil {
		adjust(&cfg)
	}
	return vat.New(cfg)
}

// startHTTP serves v at /rpc on a loopback httptest server and returns
// its ws:// URL, and a func that closes the connections, the server and
// the vat; adjust, if set, adjusts the handler's options.
func startHTTP(v *vat.Vat, logger *slog.Logger, adjust func(*rpc.HandlerOptions)) (string, func()) {
	ho := rpc.HandlerOptions{Logger: logger,
		Bootstrap: func(p rpc.Peer) capnp.Client { return v.BootstrapMetered(p.RemoteAddr, p.Meter) }}
	if adjust != nil {
		adjust(&ho)
	}
	h := rpc.NewHandler(ho)
	mux := http.NewServeMux()
	mux.Handle("/rpc", h)
	srv := httptest.NewServer(mux)
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/rpc", func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.Close()
		v.Close(ctx)
	}
}

// MustDial opens one connection (one agent) to the server, or to url if
// given (a proxy in front of it), and closes it at cleanup.
func (s *Server) MustDial(tb testing.TB, url ...string) *client.Conn {
	tb.Helper()
	target := s.URL
	if len(url) > 0 {
		target = url[0]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, target, nil)
	require.NoError(tb, err)
	tb.Cleanup(func() { c.Close() })
	return c
}

// MustCreate creates a share with the admin token and returns its owner
// token.
func (s *Server) MustCreate(tb testing.TB, title string) string {
	tb.Helper()
	ctx := context.Background()
	admin, err := s.MustDial(tb).RedeemAdmin(ctx, s.Admin)
	require.NoError(tb, err)
	defer admin.Release()
	sh, m, err := admin.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	require.NoError(tb, err)
	sh.Release()
	return m.Token
}

// MustRestore redeems token on a new connection (to url, if given).
func (s *Server) MustRestore(tb testing.TB, token string, url ...string) *client.Share {
	tb.Helper()
	sh, err := s.MustDial(tb, url...).Redeem(context.Background(), token)
	require.NoError(tb, err)
	tb.Cleanup(sh.Release)
	return sh
}

// SyncBuf is a log sink safe for concurrent writers.
type SyncBuf struct {
	mu      sync.Mutex
	b       bytes.Buffer
	changed chan struct{} // closed and replaced by every Write once WaitFor made it
}

// Write implements io.Writer.
func (s *SyncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed != nil {
		close(s.changed)
		s.changed = nil
	}
	return s.b.Write(p)
}

// WaitFor waits up to d for the text written to contain substr, and
// reports whether it does (as proctest.Log.WaitFor for a process's log).
func (s *SyncBuf) WaitFor(substr string, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		found := strings.Contains(s.b.String(), substr)
		if s.changed == nil {
			s.changed = make(chan struct{})
		}
		changed := s.changed
		s.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

// String returns everything written so far.
func (s *SyncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// WrongSecret returns tok with one character of its secret changed, so it
// is still well-formed but never verifies. It changes the secret's first
// character (the last one carries only four bits, so overwriting it with a
// fixed letter leaves the token unchanged one time in sixteen).
func WrongSecret(tok string) string {
	i := strings.LastIndexByte(tok, '_') + 1
	c := byte('A')
	if tok[i] == 'A' {
		c = 'B'
	}
	return tok[:i] + string(c) + tok[i+1:]
}
