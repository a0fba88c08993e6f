package pgtest_test

import (
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"sharevat/internal/pgtest"
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
