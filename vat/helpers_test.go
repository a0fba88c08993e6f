package vat_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
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
	Admin string // the admin token
}

// MustServe starts a vat on a fresh data file. wrap, if non-nil, wraps the
// store (fault injection); limits, if non-zero, replace the defaults.
func MustServe(tb testing.TB, limits sharevat.Limits, wrap func(sharevat.Store) sharevat.Store) *testVat {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "sharevat.db"), bolt.Options{})
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
	v, err := vat.New(vat.Config{Store: st, Verifier: ver, Limits: limits})
	require.NoError(tb, err)
	m, err := v.MintAdminToken(context.Background())
	require.NoError(tb, err)
	return &testVat{URL: startHTTP(tb, v), Vat: v, Store: st, Admin: m.Token}
}

func startHTTP(tb testing.TB, v *vat.Vat) string {
	h := rpc.NewHandler(rpc.HandlerOptions{Bootstrap: func(p rpc.Peer) capnp.Client { return v.Bootstrap(p.RemoteAddr) }})
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
