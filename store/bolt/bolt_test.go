package bolt_test

import (
	"path/filepath"
	"testing"

	"sharevat"
	"sharevat/store/bolt"
	"sharevat/store/storetest"
)

// MustOpen opens a durable DB in a new temporary directory and closes it
// when tb ends.
func MustOpen(tb testing.TB) *bolt.DB {
	tb.Helper()
	return MustOpenAt(tb, filepath.Join(tb.TempDir(), "sharevat.db"), bolt.Options{})
}

// MustOpenAt opens the DB at path with opts and closes it when tb ends.
// Closing twice is harmless, so tests may close it early.
func MustOpenAt(tb testing.TB, path string, opts bolt.Options) *bolt.DB {
	tb.Helper()
	db, err := bolt.Open(path, opts)
	if err != nil {
		tb.Fatalf("Open(%s): %v", path, err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("Close: %v", err)
		}
	})
	return db
}

func TestContract(t *testing.T) {
	storetest.Run(t, func(t *testing.T) sharevat.Store { return MustOpen(t) })
}
