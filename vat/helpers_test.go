package vat_test

import (
	"sync"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/vat"
)

// testVat is a whole server built in-process: a real store, the vat,
// and the WebSocket handler on a real loopback HTTP server.
type testVat = vattest.Server

// MustServe starts a vat on a fresh bbolt data file. wrap, if non-nil, wraps the
// store (fault injection); limits, if non-zero, replace the defaults.
func MustServe(tb testing.TB, limits sharevat.Limits, wrap func(sharevat.Store) sharevat.Store) *testVat {
	tb.Helper()
	return MustServeConfig(tb, wrap, func(c *vat.Config) { c.Limits = limits })
}

// MustServeConfig is MustServe with a hook to adjust the vat's Config.
func MustServeConfig(tb testing.TB, wrap func(sharevat.Store) sharevat.Store, adjust func(*vat.Config)) *testVat {
	tb.Helper()
	return onBolt.serveConfig(tb, wrap, adjust)
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

// storeKind is a store the vat's tests run on: the embedded bbolt file,
// or PostgreSQL (store/pg, on a fresh database of pgtest's cluster). The
// tests of what a store backs — fork, delete, compaction, retention,
// audit, grants — run on both through onEachStore, unchanged.
type storeKind string

const (
	onBolt storeKind = "bolt"
	onPG   storeKind = "pg"
)

// onEachStore runs test as the subtests bolt and pg. The pg one skips
// with pgtest's NOTICE where PostgreSQL is not installed, and fails
// instead under SHAREVAT_REQUIRE_PG=1 (CI).
func onEachStore(t *testing.T, test func(t *testing.T, on storeKind)) {
	t.Helper()
	for _, k := range []storeKind{onBolt, onPG} {
		t.Run(string(k), func(t *testing.T) { test(t, k) })
	}
}

// serve is MustServe on the store k.
func (k storeKind) serve(tb testing.TB, limits sharevat.Limits, wrap func(sharevat.Store) sharevat.Store) *testVat {
	tb.Helper()
	return k.serveConfig(tb, wrap, func(c *vat.Config) { c.Limits = limits })
}

// serveConfig is MustServeConfig on the store k.
func (k storeKind) serveConfig(tb testing.TB, wrap func(sharevat.Store) sharevat.Store, adjust func(*vat.Config)) *testVat {
	tb.Helper()
	opts := vattest.Options{Wrap: wrap, Config: adjust}
	if k == onPG {
		opts.DSN = pgtest.DB(tb)
	}
	return vattest.Start(tb, opts)
}
