package pgtest

import (
	"context"
	"fmt"
	"os"
	"testing"
)

// Cluster is a PostgreSQL server of one test's own, for tests of what
// happens while the database is down: Stop shuts it down (as an outage
// would: connections are cut, new ones refused), Start brings it back on
// the same port with the same data. Unlike DB's shared cluster, stopping
// it disturbs no other test.
type Cluster struct {
	c   *cluster
	bin string
}

// Own starts a cluster of t's own (initdb and a start, a few seconds) and
// stops it and removes its directory when t ends. It skips or fails t
// like DB when PostgreSQL is not installed.
func Own(t testing.TB) *Cluster {
	t.Helper()
	bin, err := findBin()
	switch {
	case err != nil && os.Getenv("SHAREVAT_REQUIRE_PG") == "1":
		t.Fatalf("pgtest: PostgreSQL not installed, and SHAREVAT_REQUIRE_PG=1: %v", err)
	case err != nil:
		t.Skipf("NOTICE: PostgreSQL not installed: %v; this test did not run", err)
	}
	c, err := newCluster(context.Background(), bin)
	if err != nil {
		t.Fatalf("pgtest: own cluster: %v", err)
	}
	t.Cleanup(func() {
		if err := c.stop(); err != nil {
			t.Errorf("pgtest: stopping the own cluster: %v", err)
		}
	})
	return &Cluster{c: c, bin: bin}
}

// DSN is the URL of the cluster's database postgres, over TCP to
// 127.0.0.1 (usable by child processes too).
func (cl *Cluster) DSN() string { return cl.c.dsn("postgres") }

// Stop shuts the server down (a fast shutdown: open connections are
// closed) and returns once it has exited.
func (cl *Cluster) Stop(t testing.TB) {
	t.Helper()
	cl.c.halt()
}

// Start starts the stopped server again on its port and returns once it
// answers a query.
func (cl *Cluster) Start(t testing.TB) {
	t.Helper()
	if err := cl.c.start(cl.bin); err != nil {
		t.Fatalf("pgtest: restart: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if err := cl.c.waitReady(ctx); err != nil {
		t.Fatalf("pgtest: restart: %v", fmt.Errorf("%w; server output:\n%s", err, cl.c.log))
	}
}
