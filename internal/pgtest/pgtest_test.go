package pgtest_test

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat/internal/pgtest"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// TestDB: each call gives a database of its own, empty and writable.
func TestDB(t *testing.T) {
	a, b := pgtest.DB(t), pgtest.DB(t)
	if a == b {
		t.Fatalf("two databases with one DSN %q", a)
	}
	ca, err := pgx.Connect(t.Context(), a)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer ca.Close(t.Context())
	if _, err := ca.Exec(t.Context(), "CREATE TABLE x (v int)"); err != nil {
		t.Fatalf("create table: %v", err)
	}
	cb, err := pgx.Connect(t.Context(), b)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cb.Close(t.Context())
	var n int
	if err := cb.QueryRow(t.Context(), "SELECT count(*) FROM pg_tables WHERE tablename = 'x'").Scan(&n); err != nil || n != 0 {
		t.Fatalf("the second database sees %d tables x (err %v), want none", n, err)
	}
}

// TestOwnStopStart: an own cluster refuses connections while stopped and
// comes back on the same DSN with its data.
func TestOwnStopStart(t *testing.T) {
	cl := pgtest.Own(t)
	c, err := pgx.Connect(t.Context(), cl.DSN())
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	if _, err := c.Exec(t.Context(), "CREATE TABLE kept (v int); INSERT INTO kept VALUES (7)"); err != nil {
		t.Fatalf("create: %v", err)
	}
	cl.Stop(t)
	if _, err := c.Exec(t.Context(), "SELECT 1"); err == nil {
		t.Fatal("a connection opened before Stop still answers after it")
	}
	if c2, err := pgx.Connect(t.Context(), cl.DSN()); err == nil {
		c2.Close(t.Context())
		t.Fatal("a stopped cluster accepted a connection")
	}
	cl.Start(t)
	c3, err := pgx.Connect(t.Context(), cl.DSN())
	if err != nil {
		t.Fatalf("connect after Start: %v", err)
	}
	defer c3.Close(t.Context())
	var v int
	if err := c3.QueryRow(t.Context(), "SELECT v FROM kept").Scan(&v); err != nil || v != 7 {
		t.Fatalf("after a restart the table holds %d (err %v), want 7", v, err)
	}
}
