package outbox_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/outbox"
)

// compactBound is the most an outbox file may weigh once its acked
// records have been pruned and the file compacted.
const compactBound = 256 << 10

// ackInBatches enqueues n ops, as one large append does, then sends
// (Next) and acks them in batches of 500.
func ackInBatches(t *testing.T, db *outbox.DB, prefix string, n int) {
	t.Helper()
	for i := 0; i < n; i += 500 {
		require.NoError(t, db.Enqueue(ops(fmt.Sprint(prefix, i, "-"), 500), now))
	}
	newID, _ := ids()
	head := sharevat.Cursor(0)
	for i := 0; i < n; i += 500 {
		b, err := db.Next(500, 1<<20, newID)
		require.NoError(t, err)
		require.NoError(t, db.Ack(b.BatchID, applied(b, head), now))
		head += sharevat.Cursor(len(b.Ops))
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Size()
}

// TestOutboxShrinksWhenOpened: after 20,000 acked ops the file
// has grown; opened again it is compacted to a small bound, its pending
// ops are kept in order, and new ops still queue after them.
func TestOutboxShrinksWhenOpened(t *testing.T) {
	path := filepath.Join(t.TempDir(), "outbox.db")
	db, err := outbox.Open(path, outbox.Options{KeepDone: 100})
	require.NoError(t, err)
	ackInBatches(t, db, "a", 20_000)
	require.NoError(t, db.Enqueue(ops("p", 50), now))
	require.NoError(t, db.Close())
	before := fileSize(t, path)

	db = mustOpenAt(t, path, outbox.Options{KeepDone: 100})
	after := fileSize(t, path)
	t.Logf("outbox file after 20,000 acked ops: %d bytes before compaction, %d after", before, after)
	assert.Greater(t, before, int64(compactBound), "the ops did grow the file")
	assert.LessOrEqual(t, after, int64(compactBound), "opening compacts it")

	require.NoError(t, db.Enqueue(ops("q", 1), now))
	pend, err := db.Pending()
	require.NoError(t, err)
	require.Len(t, pend, 51, "pending ops survive the compaction")
	assert.Equal(t, "p0", pend[0].OpID)
	assert.Equal(t, "p49", pend[49].OpID)
	assert.Equal(t, "q0", pend[50].OpID, "new ops still queue last")
	st, err := db.Status()
	require.NoError(t, err)
	assert.Equal(t, 100, st.Done)
	assert.Equal(t, sharevat.Cursor(20_000), st.LastAckedCursor)
	assertNoCompactFile(t, path)
}

// TestCompactKeepsTheLock: Compact of an open outbox renames a
// new file over the old one while holding both locks, so another Open of
// the path still waits and fails; the DB goes on working on the new file.
func TestCompactKeepsTheLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "outbox.db")
	db := mustOpenAt(t, path, outbox.Options{KeepDone: 100})
	ackInBatches(t, db, "a", 20_000)
	require.NoError(t, db.Enqueue(ops("p", 3), now))
	before := fileSize(t, path)

	did, err := db.Compact()
	require.NoError(t, err)
	assert.True(t, did)
	after := fileSize(t, path)
	t.Logf("outbox file after 20,000 acked ops: %d bytes before Compact, %d after", before, after)
	assert.LessOrEqual(t, after, int64(compactBound))
	did, err = db.Compact()
	require.NoError(t, err)
	assert.False(t, did, "a compact file is left alone")

	_, err = outbox.Open(path, outbox.Options{LockTimeout: 100 * time.Millisecond})
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "the new file is locked too")
	require.NoError(t, db.Enqueue(ops("q", 1), now))
	pend, err := db.Pending()
	require.NoError(t, err)
	var got []string
	for _, r := range pend {
		got = append(got, r.OpID)
	}
	assert.Equal(t, []string{"p0", "p1", "p2", "q0"}, got, "the DB works on the new file")
	assertNoCompactFile(t, path)
}

func assertNoCompactFile(t *testing.T, path string) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
	require.NoError(t, err)
	assert.Equal(t, []string{path}, names, "only the outbox file is left")
}
