package client_test

import (
	"context"
	"crypto/rand"
	"fmt"
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
	"sharevat/internal/faultproxy"
	"sharevat/rpc"
	"sharevat/store/bolt"
	"sharevat/sturdyref"
	"sharevat/vat"
)

// obVat is a whole server built in-process for the outbox tests (the
// MustServe pattern of vat/helpers_test.go): a real bbolt file wrapped in
// a hookStore, the vat, and the WebSocket handler on a loopback server.
type obVat struct {
	URL   string // ws://host:port/rpc
	Addr  string // host:port, for a fault proxy
	Store *hookStore
	Vat   *vat.Vat
	Admin string // the admin token
}

// hookStore wraps the real store to watch and perturb appends. afterAppend,
// if set, runs after each successful Append of the real store (the batch
// is durable) and before the vat sends the ack.
type hookStore struct {
	sharevat.Store
	mu          sync.Mutex
	afterAppend func(ctx context.Context, n int, req sharevat.AppendRequest, ack sharevat.Ack)
	batches     []sharevat.Batch // every batch the store received, in order
}

func (h *hookStore) Append(ctx context.Context, req sharevat.AppendRequest) (sharevat.Ack, error) {
	ack, err := h.Store.Append(ctx, req)
	h.mu.Lock()
	h.batches = append(h.batches, *req.Batch)
	n, fn := len(h.batches), h.afterAppend
	h.mu.Unlock()
	if err == nil && fn != nil {
		fn(ctx, n, req, ack)
	}
	return ack, err
}

func (h *hookStore) setAfterAppend(fn func(ctx context.Context, n int, req sharevat.AppendRequest, ack sharevat.Ack)) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.afterAppend = fn
}

// received returns the batches the store received so far.
func (h *hookStore) received() []sharevat.Batch {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]sharevat.Batch(nil), h.batches...)
}

// mustServeOutboxVat starts a vat with default limits on a fresh data file.
func mustServeOutboxVat(tb testing.TB) *obVat {
	tb.Helper()
	db, err := bolt.Open(filepath.Join(tb.TempDir(), "sharevat.db"), bolt.Options{})
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	hs := &hookStore{Store: db}
	pepper, err := sturdyref.NewPepper(rand.Reader)
	require.NoError(tb, err)
	ver, err := sturdyref.NewVerifier(pepper)
	require.NoError(tb, err)
	v, err := vat.New(vat.Config{Store: hs, Verifier: ver, Limits: sharevat.DefaultLimits()})
	require.NoError(tb, err)
	m, err := v.MintAdminToken(context.Background())
	require.NoError(tb, err)
	url := startOutboxHTTP(tb, v)
	addr := strings.TrimSuffix(strings.TrimPrefix(url, "ws://"), "/rpc")
	return &obVat{URL: url, Addr: addr, Store: hs, Vat: v, Admin: m.Token}
}

func startOutboxHTTP(tb testing.TB, v *vat.Vat) string {
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

// mustDial opens one direct connection, closed at cleanup.
func (tv *obVat) mustDial(tb testing.TB) *client.Conn {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, tv.URL, nil)
	require.NoError(tb, err)
	tb.Cleanup(func() { c.Close() })
	return c
}

// mustCreate creates a share and returns its owner token.
func (tv *obVat) mustCreate(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	admin, err := tv.mustDial(tb).Admin(ctx, tv.Admin)
	require.NoError(tb, err)
	defer admin.Release()
	title := "outbox"
	sh, m, err := admin.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	require.NoError(tb, err)
	sh.Release()
	return m.Token
}

// mustRestore redeems token on a new direct connection.
func (tv *obVat) mustRestore(tb testing.TB, token string) *client.Share {
	tb.Helper()
	sh, err := tv.mustDial(tb).Restore(context.Background(), token)
	require.NoError(tb, err)
	tb.Cleanup(sh.Release)
	return sh
}

// readLog reads the whole log over a separate direct connection.
func (tv *obVat) readLog(tb testing.TB, token string) []sharevat.Entry {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rd, err := tv.mustRestore(tb, token).Reader(ctx)
	require.NoError(tb, err)
	defer rd.Release()
	var all []sharevat.Entry
	_, err = rd.ReadAll(ctx, 0, func(es []sharevat.Entry) error { all = append(all, es...); return nil })
	require.NoError(tb, err)
	return all
}

// mustProxy starts a fault proxy in front of the vat.
func (tv *obVat) mustProxy(tb testing.TB) *faultproxy.Proxy {
	tb.Helper()
	p, err := faultproxy.New(tv.Addr)
	require.NoError(tb, err)
	tb.Cleanup(func() { p.Close() })
	return p
}

// mustOutbox opens an outbox in a fresh directory, closed at cleanup.
func mustOutbox(tb testing.TB, opts client.OutboxOptions) *client.Outbox {
	tb.Helper()
	o, err := client.OpenOutbox(filepath.Join(tb.TempDir(), "outbox.db"), opts)
	require.NoError(tb, err)
	tb.Cleanup(func() { o.Close() })
	return o
}

// fastSession is a Session with short backoff, closed at cleanup.
func fastSession(tb testing.TB, url, token string) *client.Session {
	s := client.NewSession(url, token, &client.SessionOptions{MinBackoff: 5 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
	tb.Cleanup(s.Close)
	return s
}

// testOps returns n message ops with ids prefix0, prefix1, ….
func testOps(prefix string, n int) []sharevat.Op {
	out := make([]sharevat.Op, n)
	for i := range out {
		id := fmt.Sprintf("%s%d", prefix, i)
		out[i] = sharevat.Op{OpID: id, Kind: sharevat.KindMessage, Key: id, Body: []byte(fmt.Sprintf(`{"n":%d}`, i))}
	}
	return out
}

func entryIDs(es []sharevat.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.OpID
	}
	return out
}

// flushAsync runs o.Flush in a goroutine and returns its result channel;
// the test waits for it, so the goroutine never outlives the test.
func flushAsync(ctx context.Context, o *client.Outbox, s *client.Session) <-chan error {
	errc := make(chan error, 1)
	go func() { errc <- o.Flush(ctx, s) }()
	return errc
}

// waitErr waits for errc, failing loudly after d.
func waitErr(tb testing.TB, errc <-chan error, d time.Duration, what string) error {
	tb.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(d):
		tb.Fatalf("%s did not return within %s", what, d)
		return nil
	}
}
