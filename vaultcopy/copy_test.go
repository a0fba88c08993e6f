package vaultcopy_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/pg"
	"github.com/sharevat/sharevat/vaultcopy"
)

// stoppedVault builds the fixture in a bbolt file and closes it, as a
// stopped vat leaves it; it returns the file, the fixture and the view.
func stoppedVault(t *testing.T) (string, *vault, vaultView) {
	t.Helper()
	db := mustBolt(t)
	v := buildVault(t, db)
	want := view(t, db)
	require.NoError(t, db.Close())
	return db.Path(), v, want
}

// openBolt opens the bbolt file at path for t.
func openBolt(t *testing.T, path string) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, bolt.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

// TestToPostgres: the fixture (a compacted share, a fork made before its
// parent's compaction, a fork of the compacted share, a deleted share
// with a live fork, read and revoked grants, an admin grant, audit
// records) is copied from a stopped bbolt file into an empty database.
// The database then gives every share, grant, log entry (cursors, op
// ids, times, digests), snapshot, compacted op id and base, admin grant
// and audit record as bbolt did; answers a retry of every op of every
// live share, compacted ones included, as a duplicate at its original
// cursor, applying nothing; and forks the compacted share at its
// earliest-1 and past it with bbolt's state. (It was the process test
// TestMigrateCompactedToPostgres of cmd/sharevat.)
func TestToPostgres(t *testing.T) {
	path, v, want := stoppedVault(t)
	dst, dsn := mustPG(t)

	n, err := vaultcopy.ToPostgres(t.Context(), path, dsn, vaultcopy.Options{})
	require.NoError(t, err)
	assert.Equal(t, vaultcopy.Counts{Shares: 5, Grants: 9, Ops: 9 + 8 + 3 + 5, Compacted: 7 + 7, Audit: 3}, n)
	assert.Equal(t, want, view(t, dst))
	retryAll(t, dst, v)
	sameForks(t, openBolt(t, path), dst, "a", 7, 10)
}

// TestFromPostgres: the fixture copied into a database and back into a
// new bbolt file. The new file is clean by bolt.Check and gives the
// same vault as the first through the store's interface (audit records
// renumbered from 1, as they were; a deleted share's head not kept); every share's log, op-id index,
// state and base buckets are the first file's, byte for byte; it
// answers a retry of every op as a duplicate at its cursor and forks as
// the first did, and is still clean after. Share f is a fork its parent
// was compacted past after it was made, df a fork of a deleted share:
// neither can be forked again, and both keep their parent id, fork
// cursor and whole log. (It was the process tests TestMigrateCompactedBack,
// TestMigrateBackForkOfCompacted and TestMigrateBackForkOfDeleted of
// cmd/sharevat.)
func TestFromPostgres(t *testing.T) {
	path, v, want := stoppedVault(t)
	_, dsn := mustPG(t)
	_, err := vaultcopy.ToPostgres(t.Context(), path, dsn, vaultcopy.Options{})
	require.NoError(t, err)
	back := filepath.Join(t.TempDir(), "back", "sharevat.db")

	n, err := vaultcopy.FromPostgres(t.Context(), dsn, back, vaultcopy.Options{})
	require.NoError(t, err)
	assert.Equal(t, vaultcopy.Counts{Shares: 5, Grants: 9, Ops: 9 + 8 + 3 + 5, Audit: 3}, n)
	checkClean(t, back)
	sameLogBuckets(t, path, back, 4) // d is deleted: its buckets are gone
	db := openBolt(t, back)
	assert.Equal(t, headless(want), view(t, db))
	retryAll(t, db, v)
	sameForks(t, openBolt(t, path), db, "a", 7, 10)
	require.NoError(t, db.Close())
	checkClean(t, back)
}

// TestReplayBoltToBolt: Replay, with a bbolt file as its source, gives
// the same vault through the store's interface, byte for byte in its
// log buckets: the way back does not depend on PostgreSQL.
func TestReplayBoltToBolt(t *testing.T) {
	path, _, want := stoppedVault(t)
	src := openBolt(t, path)
	dst := mustBolt(t)

	_, err := vaultcopy.Replay(t.Context(), src, dst)
	require.NoError(t, err)
	assert.Equal(t, headless(want), view(t, dst))
	require.NoError(t, dst.Close())
	require.NoError(t, src.Close())
	checkClean(t, dst.Path())
	sameLogBuckets(t, path, dst.Path(), 4)
}

// headless is v with the head of each deleted share 0: the way back
// deletes a share again without replaying its log, which no one can
// read any more.
func headless(v vaultView) vaultView {
	for id, s := range v.Shares {
		if s.Share.Deleted {
			s.Share.Head = 0
			v.Shares[id] = s
		}
	}
	return v
}

// retryAll appends every op sent to each live share of v again in one
// batch and asserts each is a duplicate at its original cursor and none
// is applied.
func retryAll(t *testing.T, st sharevat.Store, v *vault) {
	t.Helper()
	for id, sent := range v.sent {
		if id == "d" {
			continue // deleted
		}
		ack := appendOps(t, st, string(id), time.Now(), "retry", sent...)
		require.Len(t, ack.Results, len(sent), "share %s", id)
		for i, r := range ack.Results {
			assert.Equal(t, sharevat.StatusDuplicate, r.Status, "share %s op %s", id, sent[i].OpID)
			assert.Equal(t, sharevat.Cursor(i+1), r.Cursor, "share %s op %s at its original cursor", id, sent[i].OpID)
		}
		assert.Zero(t, ack.Applied, "share %s: a retry is not applied again", id)
	}
}

// sameForks forks share id at each cursor in a and in b and asserts the
// forks' snapshots are the same.
func sameForks(t *testing.T, a, b sharevat.Store, id string, at ...sharevat.Cursor) {
	t.Helper()
	for _, c := range at {
		snap := func(st sharevat.Store) []sharevat.Entity {
			v := &vault{st: st, now: t0.Add(time.Hour)}
			s, owner := v.share("fork-" + string(rune('a'+c)))
			_, err := st.Fork(t.Context(), sharevat.ShareID(id), c, s, owner)
			require.NoError(t, err, "fork at %d", c)
			es, _, err := st.Snapshot(t.Context(), s.ID)
			require.NoError(t, err)
			return utc(es)
		}
		assert.Equal(t, snap(a), snap(b), "the fork at %d", c)
	}
}

// checkClean asserts bolt.Check finds no problem in the file at path.
func checkClean(t *testing.T, path string) {
	t.Helper()
	problems, err := bolt.Check(t.Context(), path, time.Second)
	require.NoError(t, err)
	assert.Empty(t, problems, "the copied vault is clean")
}

var _ sharevat.VaultLoader = (*pg.Store)(nil)
