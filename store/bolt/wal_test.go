package bolt_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/store/bolt/wal"
)

// noApply is Options under which the background applier never runs on
// its own: what is appended stays in the write-ahead log (and the
// overlay) until a flush, a close or a crash.
func noApply() bolt.Options {
	return bolt.Options{ApplyBytes: 1 << 40, ApplyEvery: time.Hour}
}

// openDB opens path with opts; the caller closes or crashes it.
func openDB(t *testing.T, path string, opts bolt.Options) *bolt.DB {
	t.Helper()
	db, err := bolt.Open(path, opts)
	require.NoError(t, err)
	return db
}

// requireClean runs Check on the data file (and its log) at path.
func requireClean(t *testing.T, path string) {
	t.Helper()
	problems, err := bolt.Check(context.Background(), path, 0)
	require.NoError(t, err)
	require.Empty(t, problems, "Check finds the data file and its log sound")
}

// readAll reads share id whole.
func readAll(t *testing.T, db *bolt.DB, id sharevat.ShareID) ([]sharevat.Entry, sharevat.Cursor) {
	t.Helper()
	es, head, err := db.Read(context.Background(), id, 0, 1<<20)
	require.NoError(t, err)
	return es, head
}

// TestWALReadsBeforeApply: acknowledged ops not yet in the data file are
// read, snapshotted, counted in the head, answered as duplicates (before
// and after they reach the data file), and survive a crash (replay).
func TestWALReadsBeforeApply(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db := openDB(t, path, noApply())
	createShare(t, db, "s")
	appendOps(t, db, "s", 1, msg("m1", "k1", 1), msg("m2", "k2", 2), event("e1", `{}`))
	require.NoError(t, db.Flush(ctx))
	appendOps(t, db, "s", 1, msg("m3", "k1", 3), sharevat.Op{OpID: "d2", Kind: sharevat.KindMessage, Key: "k2", Delete: true}, msg("m4", "k3", 4))
	assert.Equal(t, 1, bolt.Pending(db), "the second append is only in the log")

	check := func(db *bolt.DB) {
		es, head := readAll(t, db, "s")
		assert.Equal(t, sharevat.Cursor(6), head)
		require.Len(t, es, 6)
		for i, e := range es {
			assert.Equal(t, sharevat.Cursor(i+1), e.Cursor)
		}
		part, _, err := db.Read(ctx, "s", 2, 2)
		require.NoError(t, err)
		require.Len(t, part, 2, "a read across the data file and the log")
		assert.Equal(t, []string{"e1", "m3"}, []string{part[0].OpID, part[1].OpID})
		state, at, err := db.Snapshot(ctx, "s")
		require.NoError(t, err)
		assert.Equal(t, sharevat.Cursor(6), at)
		require.Len(t, state, 2, "k2 deleted")
		assert.Equal(t, "k1", state[0].Key)
		assert.Equal(t, `{"v":3}`, string(state[0].Body))
		assert.Equal(t, sharevat.Cursor(4), state[0].Cursor)
		assert.Equal(t, "k3", state[1].Key)
		s, err := db.Share(ctx, "s")
		require.NoError(t, err)
		assert.Equal(t, sharevat.Cursor(6), s.Head)
		for _, id := range []string{"m1", "m3"} { // one in the data file, one in the log
			ack := appendOps(t, db, "s", 1, msg(id, "k1", map[string]int{"m1": 1, "m3": 3}[id]))
			assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status, id)
		}
		ack := appendOps(t, db, "s", 1, msg("m3", "k1", 99))
		assert.Equal(t, sharevat.ReasonIDReused, ack.Results[0].Reason)
	}
	check(db)
	require.NoError(t, bolt.Crash(db))
	requireClean(t, path)

	db = openDB(t, path, noApply())
	assert.Equal(t, 1, bolt.Pending(db), "replayed")
	check(db)
	require.NoError(t, db.Close())
	requireClean(t, path)
	db = openDB(t, path, noApply())
	assert.Zero(t, bolt.Pending(db), "a clean close applies the whole log")
	check(db)
	require.NoError(t, db.Close())
}

// TestWALEpochOrdered: an epoch bump is ordered after the appends
// acknowledged before it, and fences those after it.
func TestWALEpochOrdered(t *testing.T) {
	ctx := t.Context()
	db := openDB(t, filepath.Join(t.TempDir(), "sharevat.db"), noApply())
	defer db.Close()
	createShare(t, db, "s")
	appendOps(t, db, "s", 1, event("a", `{}`))
	owner := sharevat.Grant{ID: "s-owner-2", ShareID: "s", Scope: sharevat.ScopeOwner, Epoch: 2, CreatedAt: t0}
	_, err := db.BumpEpoch(ctx, "s", owner)
	require.NoError(t, err)
	ack := appendOps(t, db, "s", 1, event("b", `{}`))
	assert.Equal(t, sharevat.ReasonStaleEpoch, ack.Results[0].Reason)
	ack = appendOps(t, db, "s", 2, event("a", `{}`), event("b", `{}`))
	assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status)
	assert.Equal(t, sharevat.StatusApplied, ack.Results[1].Status)
	require.NoError(t, db.Delete(ctx, "s", t0))
	_, err = db.Append(ctx, sharevat.AppendRequest{Share: "s", Batch: &sharevat.Batch{Epoch: 2, Ops: []sharevat.Op{event("c", `{}`)}}, Limits: sharevat.DefaultLimits(), Now: t0})
	assert.Equal(t, sharevat.ENotFound, sharevat.ErrorCode(err))
}

// segment is the path of the log's only segment.
func segment(t *testing.T, path string) string {
	t.Helper()
	segs, err := filepath.Glob(filepath.Join(path+".wal", "*.wal"))
	require.NoError(t, err)
	require.Len(t, segs, 1)
	return segs[0]
}

// copyFile copies src to dst.
func copyTo(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o700))
	require.NoError(t, os.WriteFile(dst, b, 0o600))
}

// TestWALTornTail cuts the log at every byte offset of its last three
// records and reopens: every append whose record is whole is there, the
// one cut is not there at all, the cut tail is removed, appends go on,
// and Check finds the data file and the log sound.
func TestWALTornTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sharevat.db")
	db := openDB(t, path, noApply())
	createShare(t, db, "s")
	appendOps(t, db, "s", 1, msg("m0", "k", 0))
	require.NoError(t, db.Flush(t.Context()))
	fi, err := os.Stat(segment(t, path))
	require.NoError(t, err)
	base := fi.Size() // the end of m0's record, which the data file holds
	var ends []int64  // the segment's length after each acknowledged append
	for i := range 3 {
		appendOps(t, db, "s", 1, msg(fmt.Sprint("a", i), "k", i+1), event(fmt.Sprint("e", i), `{"x":"`+fmt.Sprint(i)+`"}`))
		fi, err := os.Stat(segment(t, path))
		require.NoError(t, err)
		ends = append(ends, fi.Size())
	}
	require.NoError(t, bolt.Crash(db))
	seg := segment(t, path)
	for off := max(base-10, 0); off <= ends[2]; off++ {
		whole := 0
		for _, e := range ends {
			if e <= off {
				whole++
			}
		}
		t.Run(fmt.Sprint(off), func(t *testing.T) {
			cut := filepath.Join(t.TempDir(), "sharevat.db")
			copyTo(t, path, cut)
			copyTo(t, seg, filepath.Join(cut+".wal", filepath.Base(seg)))
			require.NoError(t, os.Truncate(filepath.Join(cut+".wal", filepath.Base(seg)), off))
			db := openDB(t, cut, noApply())
			es, head := readAll(t, db, "s")
			want := 1 + 2*whole // m0 is in the data file whatever the cut
			assert.Equal(t, sharevat.Cursor(want), head, "whole records: %d", whole)
			assert.Len(t, es, want)
			ack := appendOps(t, db, "s", 1, event("after", `{}`))
			assert.Equal(t, sharevat.StatusApplied, ack.Results[0].Status)
			require.NoError(t, db.Close())
			requireClean(t, cut)
		})
	}
}

// TestWALPowerLoss: appends from several clients while the disk's
// fdatasync starts failing and then the power goes (the Lossy file layer
// forgets every write after the last fdatasync): every acknowledged op
// is there after a restart, at its cursor, once; the appends that failed
// were never acknowledged; the data file and the log agree.
func TestWALPowerLoss(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	fs := wal.NewLossy()
	opts := bolt.Options{WALFS: fs, ApplyBytes: 4 << 10, ApplyEvery: time.Millisecond}
	db := openDB(t, path, opts)
	createShare(t, db, "s")
	var mu sync.Mutex
	acked := map[string]sharevat.Cursor{}
	var wg sync.WaitGroup
	failed := make(chan struct{})
	var once sync.Once
	for c := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				id := fmt.Sprintf("c%d-%d", c, i)
				ack, err := db.Append(ctx, sharevat.AppendRequest{Share: "s", Limits: sharevat.DefaultLimits(), Now: t0,
					Batch: &sharevat.Batch{BatchID: id, Epoch: 1, Ops: []sharevat.Op{event(id, `{"pad":"`+fmt.Sprint(make([]byte, 64))+`"}`)}}})
				if err != nil {
					once.Do(func() { close(failed) })
					return
				}
				mu.Lock()
				acked[id] = ack.Results[0].Cursor
				n := len(acked)
				mu.Unlock()
				if n == 400 {
					fs.FailSync(errors.New("injected: the disk stopped answering"))
				}
			}
		})
	}
	wg.Wait()
	<-failed
	require.NoError(t, bolt.Crash(db))
	assert.Positive(t, fs.Unsynced(), "the failed fdatasync left a write unsynced")
	require.NoError(t, fs.Crash())

	db = openDB(t, path, bolt.Options{})
	es, _ := readAll(t, db, "s")
	got := map[string]sharevat.Cursor{}
	for _, e := range es {
		_, dup := got[e.OpID]
		require.False(t, dup, "op %s appears once", e.OpID)
		got[e.OpID] = e.Cursor
	}
	for id, c := range acked {
		assert.Equal(t, c, got[id], "acknowledged op %s is at its cursor", id)
	}
	assert.Len(t, got, len(acked), "nothing unacknowledged survives the power loss")
	require.NoError(t, db.Close())
	requireClean(t, path)
}

// TestWALDrainedByNoWAL: a log left by a crash is applied and removed by
// an Open with NoWAL.
func TestWALDrainedByNoWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db := openDB(t, path, noApply())
	createShare(t, db, "s")
	appendOps(t, db, "s", 1, event("a", `{}`), event("b", `{}`))
	require.NoError(t, bolt.Crash(db))
	db = openDB(t, path, bolt.Options{NoWAL: true})
	_, head := readAll(t, db, "s")
	assert.Equal(t, sharevat.Cursor(2), head)
	require.NoError(t, db.Close())
	_, err := os.Stat(path + ".wal")
	assert.True(t, errors.Is(err, os.ErrNotExist), "the log is removed")
	requireClean(t, path)
}

// TestWALBackupFileReplays: a backup of a stopped data directory whose
// vat died with appends only in its log holds those appends.
func TestWALBackupFileReplays(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db := openDB(t, path, noApply())
	createShare(t, db, "s")
	appendOps(t, db, "s", 1, event("a", `{}`), event("b", `{}`))
	require.NoError(t, bolt.Crash(db))
	out := filepath.Join(t.TempDir(), "backup.db")
	f, err := os.Create(out)
	require.NoError(t, err)
	_, err = bolt.BackupFile(t.Context(), path, f, 0)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	requireClean(t, out)
	db = openDB(t, out, bolt.Options{NoWAL: true})
	_, head := readAll(t, db, "s")
	assert.Equal(t, sharevat.Cursor(2), head)
	require.NoError(t, db.Close())
}
