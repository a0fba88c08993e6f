package vaultcopy_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bbolt "go.etcd.io/bbolt"
)

// sameLogBuckets asserts that every share's log, op-id index, state and
// base buckets hold the same keys and values in the bbolt files a and b,
// which hold shares live shares, and that a's base buckets are not all
// empty (the compactions kept something to compare).
func sameLogBuckets(t *testing.T, a, b string, shares int) {
	t.Helper()
	want, got := dumpLogBuckets(t, a), dumpLogBuckets(t, b)
	require.Len(t, want, 4*shares, "four buckets for each of %d shares", shares)
	bases := 0
	for name, kv := range want {
		if filepath.Base(name) == "base" {
			bases += len(kv)
		}
	}
	require.NotZero(t, bases, "the compactions kept base entities")
	assert.Equal(t, want, got, "each share's buckets as bbolt's own writes left them")
}

// dumpLogBuckets reads the log buckets of every share in the bbolt file
// at path: share/bucket → key → value.
func dumpLogBuckets(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: 10 * time.Second})
	require.NoError(t, err)
	defer db.Close()
	out := map[string]map[string]string{}
	require.NoError(t, db.View(func(tx *bbolt.Tx) error {
		logs := tx.Bucket([]byte("logs"))
		require.NotNil(t, logs)
		return logs.ForEachBucket(func(share []byte) error {
			for _, name := range []string{"log", "ops", "state", "base"} {
				kv := map[string]string{}
				if bk := logs.Bucket(share).Bucket([]byte(name)); bk != nil {
					require.NoError(t, bk.ForEach(func(k, v []byte) error { kv[string(k)] = string(v); return nil }))
				}
				out[string(share)+"/"+name] = kv
			}
			return nil
		})
	}))
	return out
}
