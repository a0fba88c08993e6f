package bolt_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// TestBackupUnderAppends: a backup taken while appenders run is a data
// file that opens, checks clean, and holds a prefix of each share's log
// with the state that prefix gives.
func TestBackupUnderAppends(t *testing.T) {
	db := MustOpen(t)
	ctx := context.Background()
	shares := []sharevat.ShareID{"a", "b", "c"}
	for _, s := range shares {
		createShare(t, db, s)
	}
	stop := make(chan struct{})
	under := make(chan struct{}) // closed once share c holds 40 ops
	var wg sync.WaitGroup
	for _, s := range shares {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				appendOps(t, db, s, 1, msg(fmt.Sprint(s, i), fmt.Sprint(i%7), i), event(fmt.Sprint(s, "e", i), `{}`))
				if s == "c" && i == 19 { // two ops per append: head 40
					close(under)
				}
			}
		})
	}
	<-under
	var buf bytes.Buffer
	n, err := db.Backup(ctx, &buf)
	close(stop)
	wg.Wait()
	require.NoError(t, err)
	require.Equal(t, int64(buf.Len()), n)
	path := filepath.Join(t.TempDir(), "sharevat.db")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	assert.Empty(t, mustCheck(t, path))
	restored := MustOpenAt(t, path, bolt.Options{})
	for _, s := range shares {
		sameShareOrPrefix(t, db, restored, s)
	}
}

// sameShareOrPrefix checks that the restored share's log is a prefix of
// the live one's.
func sameShareOrPrefix(t *testing.T, live, restored *bolt.DB, share sharevat.ShareID) {
	t.Helper()
	ctx := context.Background()
	got, head, err := restored.Read(ctx, share, 0, 100000)
	require.NoError(t, err)
	want, _, err := live.Read(ctx, share, 0, int(head))
	require.NoError(t, err)
	assert.Positive(t, head, "share %s is empty in the backup", share)
	assert.Equal(t, want, got, "share %s: the backup's log is not a prefix of the live log", share)
}

// TestBackupCancelled: a cancelled context stops a backup with an error.
func TestBackupCancelled(t *testing.T) {
	db := MustOpen(t)
	createShare(t, db, "s")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := db.Backup(ctx, &bytes.Buffer{})
	assert.Error(t, err)
}

// TestBackupFile: a stopped data directory backs up to the same content;
// a file a running store holds is EUnavailable; a missing one an error.
func TestBackupFile(t *testing.T) {
	src := richFile(t)
	var buf bytes.Buffer
	n, err := bolt.BackupFile(context.Background(), src, &buf, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(buf.Len()), n)
	path := filepath.Join(t.TempDir(), "sharevat.db")
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o600))
	assert.Empty(t, mustCheck(t, path))
	a, b := MustOpenAt(t, src, bolt.Options{}), MustOpenAt(t, path, bolt.Options{})
	want, err := a.Shares(context.Background())
	require.NoError(t, err)
	got, err := b.Shares(context.Background())
	require.NoError(t, err)
	assert.Equal(t, want, got)
	_, err = bolt.BackupFile(context.Background(), src, &buf, 50*time.Millisecond)
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "a held file: %v", err)
	_, err = bolt.BackupFile(context.Background(), filepath.Join(t.TempDir(), "none"), &buf, 0)
	assert.Error(t, err)
}

// TestLifecycleReopen: forks, compactions, deletions and settings are on
// disk: after a close and reopen, everything reads as before.
func TestLifecycleReopen(t *testing.T) {
	path := richFile(t)
	db := MustOpenAt(t, path, bolt.Options{})
	ctx := context.Background()
	p, err := db.Share(ctx, "p")
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(6), p.Earliest)
	_, _, err = db.Read(ctx, "p", 0, 10)
	assert.Equal(t, sharevat.ECompacted, sharevat.ErrorCode(err))
	kids, err := db.Children(ctx, "p")
	require.NoError(t, err)
	require.Len(t, kids, 2)
	assert.Equal(t, sharevat.ShareID("p"), kids[0].ParentID)
	g, err := db.Share(ctx, "gone")
	require.NoError(t, err)
	assert.True(t, g.Deleted)
	ack := appendOps(t, db, "p", 1, msg("m0", "k1", 0)) // compacted, still a duplicate
	assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status)
	assert.Equal(t, sharevat.Cursor(1), ack.Results[0].Cursor)
}

// TestDeleteFreesSpace: the pages of a deleted share's log are reused:
// filling another share as much does not grow the file.
func TestDeleteFreesSpace(t *testing.T) {
	db := MustOpenAt(t, filepath.Join(t.TempDir(), "sharevat.db"), bolt.Options{NoSync: true})
	fill := func(s sharevat.ShareID) {
		createShare(t, db, s)
		body := `{"t":"` + strings.Repeat("x", 4000) + `"}`
		for i := range 40 {
			var ops []sharevat.Op
			for j := range 25 {
				ops = append(ops, msg(fmt.Sprint(i, "-", j), fmt.Sprint(j), i), event(fmt.Sprint("e", i, "-", j), body))
			}
			appendOps(t, db, s, 1, ops...)
		}
	}
	fill("a")
	require.NoError(t, db.Flush(context.Background())) // Size counts the data file only
	full := db.Size()
	require.NoError(t, db.Delete(context.Background(), "a", t0))
	fill("b")
	require.NoError(t, db.Flush(context.Background()))
	assert.LessOrEqual(t, db.Size(), full+full/10, "the file grew from %d to %d bytes", full, db.Size())
}

// TestCompactBoundsFile: under a steady append-and-compact load (keep
// the last 500 ops), the file grows only by the op-id index, which stays
// whole by design (about 120 bytes per op here), never by the bodies:
// less than a fifth of what is appended (an eighth, measured).
func TestCompactBoundsFile(t *testing.T) {
	db := MustOpenAt(t, filepath.Join(t.TempDir(), "sharevat.db"), bolt.Options{NoSync: true})
	createShare(t, db, "s")
	body := `{"t":"` + strings.Repeat("x", 2000) + `"}`
	var sizes []int64
	appended := 0
	for round := range 60 {
		var ops []sharevat.Op
		for j := range 100 {
			ops = append(ops, event(fmt.Sprint(round, "-", j), body), msg(fmt.Sprint("m", round, "-", j), fmt.Sprint(j%10), round))
		}
		if round >= 20 {
			for _, op := range ops {
				appended += len(op.OpID) + len(op.Body)
			}
		}
		ack := appendOps(t, db, "s", 1, ops...)
		if ack.Head > 500 {
			_, err := db.Compact(context.Background(), "s", ack.Head-499)
			require.NoError(t, err)
		}
		sizes = append(sizes, db.Size())
	}
	grew := sizes[59] - sizes[19]
	t.Logf("rounds 20 to 60: the file grew %d bytes (%d per op) while %d bytes were appended", grew, grew/(40*200), appended)
	assert.Less(t, grew, int64(appended/5), "the file grew from %d (round 20) to %d (round 60) bytes", sizes[19], sizes[59])
}
