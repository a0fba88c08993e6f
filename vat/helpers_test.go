package vat_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/stretchr/testify/require"

	"sharevat"
	"sharevat/client"
	"sharevat/rpc"
	"sharevat/store/bolt"
	"sharevat/sturdyref"
	"sharevat/vat"
)

// testVat is a whole server built in-process: a real bbolt file, the vat,
// and the WebSocket handler on a real loopback HTTP server.
type testVat struct {
	URL   string
	Vat   *vat.Vat
	Store sharevat.Store
	Admin string   // the admin token
	Log   *syncBuf // everything the vat and the transport logged, at debug level
	Dir   string   // the data directory
}

// syncBuf is a log sink safe for concurrent writers.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// MustServe starts a vat on a fresh data file. wrap, if non-nil, wraps the
// store (fault injection); limits, if non-zero, replace the defaults.
func MustServe(tb testing.TB, limits sharevat.Limits, wrap func(sharevat.Store) sharevat.Store) *testVat {
	tb.Helper()
	return MustServeConfig(tb, wrap, func(c *vat.Config) { c.Limits = limits })
}

// MustServeConfig is MustServe with a hook to adjust the vat's Config.
func MustServeConfig(tb testing.TB, wrap func(sharevat.Store) sharevat.Store, adjust func(*vat.Config)) *testVat {
	tb.Helper()
	dir := tb.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "sharevat.db"), bolt.Options{})
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	var st sharevat.Store = db
	if wrap != nil {
		st = wrap(db)
	}
	pepper, err := sturdyref.NewPepper(rand.Reader)
	require.NoError(tb, err)
	ver, err := sturdyref.NewVerifier(pepper)
	require.NoError(tb, err)
	logs := &syncBuf{}
	logger := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := vat.Config{Store: st, Verifier: ver, Logger: logger}
	if adjust != nil {
		adjust(&cfg)
	}
	v, err := vat.New(cfg)
	require.NoError(tb, err)
	m, err := v.MintAdminToken(context.Background())
	require.NoError(tb, err)
	return &testVat{URL: startHTTP(tb, v, logger), Vat: v, Store: st, Admin: m.Token, Log: logs, Dir: dir}
}

func startHTTP(tb testing.TB, v *vat.Vat, logger *slog.Logger) string {
	h := rpc.NewHandler(rpc.HandlerOptions{Logger: logger, Bootstrap: func(p rpc.Peer) capnp.Client { return v.Bootstrap(p.RemoteAddr) }})
	mux := http.NewServeMux()
	mux.Handle("/rpc", h)
	srv := httptest.NewServer(mux)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.Close()
	})
	return "ws" + strings.TrimPrefix(srv.URL, "http") + "/rpc"
}

// MustDial opens one connection (one agent) and closes it at cleanup.
func (tv *testVat) MustDial(tb testing.TB) *client.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, tv.URL, nil)
	require.NoError(tb, err)
	tb.Cleanup(func() { c.Close() })
	return c
}

// MustCreate creates a share with the admin token and returns its owner
// token.
func (tv *testVat) MustCreate(tb testing.TB, title string) string {
	tb.Helper()
	ctx := context.Background()
	admin, err := tv.MustDial(tb).Admin(ctx, tv.Admin)
	require.NoError(tb, err)
	defer admin.Release()
	sh, m, err := admin.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	require.NoError(tb, err)
	sh.Release()
	return m.Token
}

// MustRestore redeems token on a new connection.
func (tv *testVat) MustRestore(tb testing.TB, token string) *client.Share {
	tb.Helper()
	sh, err := tv.MustDial(tb).Restore(context.Background(), token)
	require.NoError(tb, err)
	tb.Cleanup(sh.Release)
	return sh
}

func cursorp(c sharevat.Cursor) *sharevat.Cursor { return &c }

func op(id, kind, key, body string) sharevat.Op {
	o := sharevat.Op{OpID: id, Kind: kind, Key: key}
	if body != "" {
		o.Body = []byte(body)
	}
	return o
}

// clock is an injectable clock for expiry tests.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}
