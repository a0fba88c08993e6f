package client_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/faultproxy"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/vat"
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
	srv   *vattest.Server
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
	var hs *hookStore
	srv := vattest.Start(tb, vattest.Options{Wrap: func(s sharevat.Store) sharevat.Store {
		hs = &hookStore{Store: s}
		return hs
	}})
	return &obVat{URL: srv.URL, Addr: srv.Addr, Store: hs, Vat: srv.Vat, Admin: srv.Admin, srv: srv}
}

// mustCreate creates a share and returns its owner token.
func (tv *obVat) mustCreate(tb testing.TB) string {
	tb.Helper()
	return tv.srv.MustCreate(tb, "outbox")
}

// mustRestore redeems token on a new direct connection.
func (tv *obVat) mustRestore(tb testing.TB, token string) *client.Share {
	tb.Helper()
	return tv.srv.MustRestore(tb, token)
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

// fastRedeemer is a Redeemer with short backoff, closed at cleanup.
func fastRedeemer(tb testing.TB, url, token string) *client.Redeemer {
	s := client.NewRedeemer(url, token, &client.RedeemerOptions{MinBackoff: 5 * time.Millisecond, MaxBackoff: 100 * time.Millisecond})
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
func flushAsync(ctx context.Context, o *client.Outbox, s *client.Redeemer) <-chan error {
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
