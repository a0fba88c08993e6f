package vat_test

import (
	"sync"
	"testing"
	"time"

	"sharevat"
	"sharevat/internal/vattest"
	"sharevat/vat"
)

// testVat is a whole server built in-process: a real bbolt file, the vat,
// and the WebSocket handler on a real loopback HTTP server.
type testVat = vattest.Server

// MustServe starts a vat on a fresh data file. wrap, if non-nil, wraps the
// store (fault injection); limits, if non-zero, replace the defaults.
func MustServe(tb testing.TB, limits sharevat.Limits, wrap func(sharevat.Store) sharevat.Store) *testVat {
	tb.Helper()
	return MustServeConfig(tb, wrap, func(c *vat.Config) { c.Limits = limits })
}

// MustServeConfig is MustServe with a hook to adjust the vat's Config.
func MustServeConfig(tb testing.TB, wrap func(sharevat.Store) sharevat.Store, adjust func(*vat.Config)) *testVat {
	tb.Helper()
	return vattest.Start(tb, vattest.Options{Wrap: wrap, Config: adjust})
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
