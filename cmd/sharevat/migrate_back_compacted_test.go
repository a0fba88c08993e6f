package main_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bbolt "go.etcd.io/bbolt"

	"sharevat"
	"sharevat/store/bolt"
)

// TestMigrateCompactedBack: a share on a bbolt vat is written, compacted
// before cursor 8 and written on, and forked at 7 and 10 (forks of a
// compacted share are compacted too); `sharevat migrate` copies it into
// PostgreSQL and `sharevat migrate --from postgres://… --to DIR` back
// into a new data directory. `sharevat check --data` finds the new
// vault clean (the compacted shares written as bbolt's compactions
// write them), and a vat on it answers a retry of every op, compacted
// ones included, as a duplicate at its original cursor (applying
// nothing), and shows the same snapshot, log from the earliest cursor,
// compacted error and forks at 7 and 10 as the first bbolt vat did.
func TestMigrateCompactedBack(t *testing.T) {
	data, owner, sent, onBolt := compactedVault(t)
	back := migrateThereAndBack(t, data, 3) // the share and the forks mcState made at 7 and 10

	srv := startServer(t, back)
	retryDuplicates(t, srv.URL, owner, sent) // compacted ops too: not applied again
	assert.Equal(t, onBolt, mcState(t, srv.URL, owner, []sharevat.Cursor{7, 10}))
	srv.Stop(t)
	_, stderr, code := cli(t, "", nil, "check", "--data", back)
	assert.Equal(t, 0, code, "still clean after the retries and forks: %s", stderr)
}

// sameLogBuckets asserts that every share's log, op-id index, state and
// base buckets hold the same keys and values in the bbolt files a and b,
// which hold shares shares, and that a's base buckets are not all empty.
func sameLogBuckets(t *testing.T, a, b string, shares int) {
	t.Helper()
	dump := func(path string) map[string]map[string]string {
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
	want, got := dump(a), dump(b)
	require.Len(t, want, 4*shares, "four buckets for each of %d shares", shares)
	bases := 0
	for name, kv := range want {
		if filepath.Base(name) == "base" {
			bases += len(kv)
		}
	}
	require.NotZero(t, bases, "the compactions kept base entities")
	assert.Equal(t, want, got, "each share's buckets as bbolt's own compactions left them")
	sameCompacted(t, a, b)
}

// sameCompacted asserts that each share of the data file a has in b what
// its compactions kept (bolt.DB.ReadCompacted: the op ids of the dropped
// ops with their cursors and digests, and the base). The sealed index is
// compared by content, not bytes: b's was built in one go, a's by each
// compaction, so their blocks split at other op ids.
func sameCompacted(t *testing.T, a, b string) {
	t.Helper()
	read := func(path string) map[sharevat.ShareID]sharevat.Compacted {
		db, err := bolt.Open(path, bolt.Options{})
		require.NoError(t, err)
		defer db.Close()
		shares, err := db.Shares(t.Context())
		require.NoError(t, err)
		out := map[sharevat.ShareID]sharevat.Compacted{}
		for _, s := range shares {
			if !s.Deleted {
				out[s.ID], err = db.ReadCompacted(t.Context(), s.ID)
				require.NoError(t, err)
			}
		}
		return out
	}
	want := read(a)
	sealed := 0
	for _, c := range want {
		sealed += len(c.Ops)
	}
	require.NotZero(t, sealed, "the compactions dropped ops")
	assert.Equal(t, want, read(b), "each share's compacted op ids and base")
}
