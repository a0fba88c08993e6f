package main_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bbolt "go.etcd.io/bbolt"

	"sharevat"
	"sharevat/internal/pgtest"
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	sent := mcAppend(t, srv.URL, owner, 0, 12)
	_, err := redeemAt(t, srv.URL, owner).Compact(ctx, 8)
	require.NoError(t, err)
	sent = append(sent, mcAppend(t, srv.URL, owner, 12, 4)...)
	onBolt := mcState(t, srv.URL, owner, []sharevat.Cursor{7, 10})
	srv.Stop(t)

	dsn := pgtest.DB(t)
	_, stderr, code := cli(t, "", nil, "migrate", "--from", data, "--to", dsn)
	require.Equal(t, 0, code, stderr)
	back := filepath.Join(t.TempDir(), "back")
	out, stderr, code := cli(t, "", nil, "migrate", "--from", dsn, "--to", back, "--pepper-file", filepath.Join(data, "pepper.key"))
	require.Equal(t, 0, code, stderr)
	t.Log(firstLine(out))
	_, stderr, code = cli(t, "", nil, "check", "--data", back)
	require.Equal(t, 0, code, "the vault copied back is clean: %s", stderr)
	sameLogBuckets(t, filepath.Join(data, "sharevat.db"), filepath.Join(back, "sharevat.db"), 3)
	admin, err := os.ReadFile(filepath.Join(data, "admin.token"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(back, "admin.token"), admin, 0o600))

	srv = startServer(t, back)
	app, err := redeemAt(t, srv.URL, owner).Appender(ctx)
	require.NoError(t, err)
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "retry", Epoch: 1, Ops: sent})
	require.NoError(t, err)
	require.Len(t, ack.Results, len(sent))
	for i, r := range ack.Results {
		assert.Equal(t, sharevat.StatusDuplicate, r.Status, "op %s", sent[i].OpID)
		assert.Equal(t, sharevat.Cursor(i+1), r.Cursor, "op %s at its original cursor", sent[i].OpID)
	}
	assert.Zero(t, ack.Applied, "a retry of a compacted op is not applied again")
	assert.Equal(t, onBolt, mcState(t, srv.URL, owner, []sharevat.Cursor{7, 10}))
	srv.Stop(t)
	_, stderr, code = cli(t, "", nil, "check", "--data", back)
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
}
