package main_test

import (
	"testing"

	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/servertest"
	srvconfig "github.com/sharevat/sharevat/server"
)

// storeKind is where a test's `sharevat serve` keeps its vault: the
// embedded bbolt file under --data, or PostgreSQL (--store, a fresh
// database of pgtest's cluster). The CLI tests of what a store backs —
// fork, children, delete, list, status, compaction, retention, export
// and import — run on both through onEachStore, unchanged.
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

// startServer is startServer on the store k: on PostgreSQL the vat is
// the database's first, so it writes pepper.key and admin.token into
// data as a vat on bbolt does.
func (k storeKind) startServer(t *testing.T, data string, extra ...string) *server {
	t.Helper()
	if k == onPG {
		extra = append([]string{"--store", pgtest.DB(t)}, extra...)
	}
	return startServer(t, data, extra...)
}

// startInProcess is servertest.Start on the store k (a fresh database of
// pgtest's cluster on PostgreSQL), as `sharevat serve --store` builds it.
func (k storeKind) startInProcess(t *testing.T) *servertest.Server {
	t.Helper()
	var opts servertest.Options
	if k == onPG {
		dsn := pgtest.DB(t)
		opts.Config = func(c *srvconfig.Config) { c.Store = dsn }
	}
	return servertest.Start(t, opts)
}
