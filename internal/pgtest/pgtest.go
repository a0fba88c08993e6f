// Package pgtest runs a real PostgreSQL for tests: one throwaway cluster
// per test binary, made with the server's own initdb in a temporary
// directory, and a fresh database for each test that asks for one.
//
// A test package that needs PostgreSQL runs its tests through Main:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }
//
// and each test takes a database with DB, which returns its connection
// string and drops it when the test ends:
//
//	dsn := pgtest.DB(t)
//
// The binaries are found under $SHAREVAT_PG_BIN, then
// /usr/lib/postgresql/<version>/bin (Debian's postgresql package, the
// newest version), then $PATH. Where there are none, every DB call skips
// its test with a loud NOTICE, so a machine without PostgreSQL still runs
// the rest; CI installs Debian's postgresql package and sets
// SHAREVAT_REQUIRE_PG=1, which makes a missing PostgreSQL fail the tests
// instead. A cluster that is found but fails to start fails them too.
//
// initdb and postgres refuse to run as root: when the tests do, both run
// as the unprivileged user nobody (the temporary directory is handed to
// it). The server listens on a Unix socket in the temporary directory
// and on 127.0.0.1 at a free port, with trust authentication for the
// superuser postgres, and with fsync off: it is a test server, thrown
// away with its directory when Main returns.
package pgtest

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
)

// state is the cluster of this test binary.
var state struct {
	mu      sync.Mutex
	started bool
	skip    string // why there is no cluster (no binaries), or ""
	err     error  // why the cluster failed to start
	c       *cluster
	admin   *pgxpool.Pool
	n       atomic.Int64 // databases made so far
}

// Main starts the cluster, runs the tests and stops the cluster; it
// returns m.Run's exit code for os.Exit.
func Main(m *testing.M) int {
	start()
	code := m.Run()
	stop()
	return code
}

// start makes the cluster, once.
func start() {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.started {
		return
	}
	state.started = true
	bin, err := findBin()
	if err != nil {
		state.skip = err.Error()
		fmt.Fprintf(os.Stderr, "NOTICE: PostgreSQL not installed: %s; the PostgreSQL tests did not run\n", state.skip)
		return
	}
	state.c, state.err = newCluster(context.Background(), bin)
	if state.err != nil {
		return
	}
	state.admin, state.err = pgxpool.New(context.Background(), state.c.dsn("postgres"))
}

// stop stops the cluster and removes its directory.
func stop() {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.admin != nil {
		state.admin.Close()
	}
	if state.c != nil {
		if err := state.c.stop(); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: stopping the cluster: %v\n", err)
		}
	}
}

// DB creates a new, empty database for t and returns its connection
// string (a postgres:// URL over TCP to 127.0.0.1, usable by child
// processes too); the database is dropped, its connections closed, when
// t ends. It skips t with a NOTICE when PostgreSQL is not installed
// (fails it under SHAREVAT_REQUIRE_PG=1) and fails t when the cluster
// did not start. Main must be running the tests (Main starts the cluster lazily
// otherwise, and nothing stops it).
func DB(t testing.TB) string {
	t.Helper()
	start()
	switch {
	case state.skip != "" && os.Getenv("SHAREVAT_REQUIRE_PG") == "1":
		t.Fatalf("pgtest: PostgreSQL not installed, and SHAREVAT_REQUIRE_PG=1: %s", state.skip)
	case state.skip != "":
		t.Skipf("NOTICE: PostgreSQL not installed: %s; this test did not run", state.skip)
	case state.err != nil:
		t.Fatalf("pgtest: the PostgreSQL cluster did not start: %v", state.err)
	}
	name := "t_" + strconv.FormatInt(state.n.Add(1), 10)
	if _, err := state.admin.Exec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: CREATE DATABASE %s: %v", name, err)
	}
	t.Cleanup(func() {
		if _, err := state.admin.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: DROP DATABASE %s: %v", name, err)
		}
	})
	return state.c.dsn(name)
}

// dsn is the URL of database name on c, over TCP.
func (c *cluster) dsn(name string) string {
	u := url.URL{Scheme: "postgres", User: url.User("postgres"), Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)), Path: "/" + name}
	u.RawQuery = "sslmode=disable"
	return u.String()
}
