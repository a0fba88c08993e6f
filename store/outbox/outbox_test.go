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

var now = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// MustOpen opens an outbox file in a fresh directory and closes it at
// cleanup.
func MustOpen(tb testing.TB, opts outbox.Options) *outbox.DB {
	tb.Helper()
	return mustOpenAt(tb, filepath.Join(tb.TempDir(), "outbox.db"), opts)
}

func mustOpenAt(tb testing.TB, path string, opts outbox.Options) *outbox.DB {
	tb.Helper()
	db, err := outbox.Open(path, opts)
	require.NoError(tb, err)
	tb.Cleanup(func() { db.Close() })
	return db
}

func ops(prefix string, n int) []sharevat.Op {
	out := make([]sharevat.Op, n)
	for i := range out {
		id := fmt.Sprintf("%s%d", prefix, i)
		out[i] = sharevat.Op{OpID: id, Kind: "message", Key: id, Body: []byte(`{"n":1}`)}
	}
	return out
}

// ids returns a newID function handing out b1, b2, … and counting calls.
func ids() (func() string, *int) {
	n := 0
	return func() string { n++; return fmt.Sprintf("b%d", n) }, &n
}

func opIDs(b *sharevat.Batch) []string {
	var out []string
	for _, op := range b.Ops {
		out = append(out, op.OpID)
	}
	return out
}

// applied acks every op of b as applied at head+1, head+2, ….
func applied(b *sharevat.Batch, head sharevat.Cursor) sharevat.Ack {
	ack := sharevat.Ack{}
	for _, op := range b.Ops {
		head++
		ack.Results = append(ack.Results, sharevat.OpResult{OpID: op.OpID, Status: sharevat.StatusApplied, Cursor: head})
	}
	ack.Head = head
	ack.Count()
	return ack
}

func TestBatchesFollowEnqueueOrder(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	require.NoError(t, db.Enqueue(ops("a", 4), now))
	require.NoError(t, db.Enqueue(ops("b", 3), now))
	newID, calls := ids()
	var got [][]string
	head := sharevat.Cursor(0)
	for b, err := db.Next(3, 1<<20, newID); b != nil; b, err = db.Next(3, 1<<20, newID) {
		require.NoError(t, err)
		for i, op := range b.Ops {
			assert.Equal(t, uint32(i), op.Seq, "seq is the position in the batch")
		}
		require.NoError(t, db.Ack(b.BatchID, applied(b, head), now))
		head += sharevat.Cursor(len(b.Ops))
		got = append(got, opIDs(b))
	}
	want := [][]string{{"a0", "a1", "a2"}, {"a3", "b0", "b1"}, {"b2"}}
	assert.Equal(t, want, got)
	assert.Equal(t, 3, *calls, "one batch id per batch")
	st, err := db.Status()
	require.NoError(t, err)
	assert.Equal(t, outbox.Status{Done: 7, LastAckedCursor: 7}, st)
}

func TestNextResendsTheAssignedBatch(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	require.NoError(t, db.Enqueue(ops("a", 3), now))
	newID, calls := ids()
	first, err := db.Next(2, 1<<20, newID)
	require.NoError(t, err)
	require.NoError(t, db.Enqueue(ops("b", 1), now))
	again, err := db.Next(5, 1<<20, newID)
	require.NoError(t, err)
	assert.Equal(t, first, again, "until acked, the same batch: same id, seqs, ops")
	assert.Equal(t, 1, *calls)
}

func TestNextByteBudget(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	big := sharevat.Op{OpID: "big", Kind: "event", Body: make([]byte, 500)}
	small := ops("s", 3) // each 2+7+2+7 = 18 bytes
	require.NoError(t, db.Enqueue(append([]sharevat.Op{big}, small...), now))
	newID, _ := ids()
	var sizes []int
	for b, err := db.Next(100, 40, newID); b != nil; b, err = db.Next(100, 40, newID) {
		require.NoError(t, err)
		sizes = append(sizes, len(b.Ops))
		require.NoError(t, db.Ack(b.BatchID, applied(b, 0), now))
	}
	assert.Equal(t, []int{1, 2, 1}, sizes, "an op over the budget goes alone; the others fill 40 bytes")
}

// TestReopenResumes: after a restart, pending ops and their assigned
// batch come back unchanged, so the resend uses the same ids.
func TestReopenResumes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "outbox.db")
	db, err := outbox.Open(path, outbox.Options{})
	require.NoError(t, err)
	require.NoError(t, db.Enqueue(ops("a", 5), now))
	newID, calls := ids()
	before, err := db.Next(3, 1<<20, newID)
	require.NoError(t, err)
	require.NoError(t, db.SetError("connection lost", now))
	require.NoError(t, db.Close())

	db = mustOpenAt(t, path, outbox.Options{})
	after, err := db.Next(3, 1<<20, newID)
	require.NoError(t, err)
	assert.Equal(t, before, after)
	assert.Equal(t, 1, *calls, "no new batch id after reopen")
	st, err := db.Status()
	require.NoError(t, err)
	assert.Equal(t, 5, st.Pending)
	assert.Equal(t, "connection lost", st.LastError)
	assert.Equal(t, now, st.LastErrorAt)
}

// TestAckMatchesByOpID: results are matched to ops by op id, not by
// position; a rejected op is failed with its reason and never resent.
func TestAckMatchesByOpID(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	require.NoError(t, db.Enqueue(ops("a", 3), now))
	newID, _ := ids()
	b, err := db.Next(10, 1<<20, newID)
	require.NoError(t, err)
	ack := sharevat.Ack{Head: 9, Results: []sharevat.OpResult{
		{OpID: "a2", Status: sharevat.StatusApplied, Cursor: 9},
		{OpID: "a0", Status: sharevat.StatusDuplicate, Cursor: 4},
		{OpID: "a1", Status: sharevat.StatusRejected, Reason: sharevat.ReasonConflict, Message: "expected head 1, head is 8"},
	}}
	require.NoError(t, db.Ack(b.BatchID, ack, now))
	res, err := db.Results([]string{"a0", "a1", "a2", "zz"})
	require.NoError(t, err)
	want := []outbox.Result{
		{OpID: "a0", State: outbox.StateDone, BatchID: "b1", Status: sharevat.StatusDuplicate, Cursor: 4, AckedAt: now},
		{OpID: "a1", State: outbox.StateFailed, BatchID: "b1", Status: sharevat.StatusRejected, Reason: sharevat.ReasonConflict, Message: "expected head 1, head is 8", AckedAt: now},
		{OpID: "a2", State: outbox.StateDone, BatchID: "b1", Status: sharevat.StatusApplied, Cursor: 9, AckedAt: now},
		{OpID: "zz", State: outbox.StateUnknown},
	}
	assert.Equal(t, want, res)
	failed, err := db.Failed()
	require.NoError(t, err)
	assert.Equal(t, want[1:2], failed)
	next, err := db.Next(10, 1<<20, newID)
	require.NoError(t, err)
	assert.Nil(t, next, "a failed op is never resent")
}

// TestAckMustAnswerTheBatch: an ack that misses an op, or answers another
// batch, changes nothing.
func TestAckMustAnswerTheBatch(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	require.NoError(t, db.Enqueue(ops("a", 2), now))
	newID, _ := ids()
	b, err := db.Next(10, 1<<20, newID)
	require.NoError(t, err)
	bad := applied(b, 0)
	bad.Results[1].OpID = "other"
	assert.Error(t, db.Ack(b.BatchID, bad, now), "a result for an op not in the batch")
	bad.Results = bad.Results[:1]
	assert.Error(t, db.Ack(b.BatchID, bad, now), "a missing result")
	err = db.Ack("b-unknown", applied(b, 0), now)
	assert.Equal(t, sharevat.EConflict, sharevat.ErrorCode(err), "an ack for a batch that is not pending")
	again, err := db.Next(10, 1<<20, newID)
	require.NoError(t, err)
	assert.Equal(t, b, again, "still pending, same batch")
	require.NoError(t, db.Ack(b.BatchID, applied(b, 0), now))
	err = db.Ack(b.BatchID, applied(b, 0), now)
	assert.Equal(t, sharevat.EConflict, sharevat.ErrorCode(err), "acking twice")
}

func TestEnqueueSameIDs(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	require.NoError(t, db.Enqueue(ops("a", 2), now))
	require.NoError(t, db.Enqueue(ops("a", 3), now), "pending ids with the same content are not stored twice")
	pend, err := db.Pending()
	require.NoError(t, err)
	assert.Len(t, pend, 3)

	other := append(ops("c", 1), sharevat.Op{OpID: "a0", Kind: "event", Body: []byte(`{}`)})
	err = db.Enqueue(other, now)
	assert.Equal(t, sharevat.EConflict, sharevat.ErrorCode(err), "a pending id with other content")
	res, err := db.Results([]string{"c0"})
	require.NoError(t, err)
	assert.Equal(t, outbox.StateUnknown, res[0].State, "the failed call stored nothing")

	err = db.Enqueue([]sharevat.Op{{Kind: "event"}}, now)
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), "an op without an id")
}

// TestEnqueueAgainAfterDone: a done op id enqueued again is pending again
// (the server will answer duplicate).
func TestEnqueueAgainAfterDone(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	require.NoError(t, db.Enqueue(ops("a", 1), now))
	newID, _ := ids()
	b, err := db.Next(10, 1<<20, newID)
	require.NoError(t, err)
	require.NoError(t, db.Ack(b.BatchID, applied(b, 0), now))
	require.NoError(t, db.Enqueue(ops("a", 1), now))
	res, err := db.Results([]string{"a0"})
	require.NoError(t, err)
	assert.Equal(t, outbox.StatePending, res[0].State)
	st, err := db.Status()
	require.NoError(t, err)
	assert.Equal(t, 1, st.Pending)
	assert.Equal(t, 0, st.Done, "the old result is dropped")
}

func TestPruneDone(t *testing.T) {
	db := MustOpen(t, outbox.Options{KeepDone: 2})
	require.NoError(t, db.Enqueue(ops("a", 5), now))
	newID, _ := ids()
	for b, err := db.Next(1, 1<<20, newID); b != nil; b, err = db.Next(1, 1<<20, newID) {
		require.NoError(t, err)
		require.NoError(t, db.Ack(b.BatchID, applied(b, 0), now))
	}
	res, err := db.Results([]string{"a0", "a2", "a3", "a4"})
	require.NoError(t, err)
	var states []outbox.State
	for _, r := range res {
		states = append(states, r.State)
	}
	assert.Equal(t, []outbox.State{outbox.StateUnknown, outbox.StateUnknown, outbox.StateDone, outbox.StateDone}, states)
}

func TestAckClearsErrorAndKeepsHighestHead(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	require.NoError(t, db.Enqueue(ops("a", 2), now))
	newID, _ := ids()
	require.NoError(t, db.SetError("unavailable: connection refused", now))
	b, err := db.Next(1, 1<<20, newID)
	require.NoError(t, err)
	require.NoError(t, db.Ack(b.BatchID, applied(b, 10), now))
	b, err = db.Next(1, 1<<20, newID)
	require.NoError(t, err)
	require.NoError(t, db.Ack(b.BatchID, applied(b, 3), now))
	st, err := db.Status()
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(11), st.LastAckedCursor)
	assert.Empty(t, st.LastError)
}

func TestBind(t *testing.T) {
	db := MustOpen(t, outbox.Options{})
	require.NoError(t, db.Bind("s1", "ws://a/rpc"))
	require.NoError(t, db.Bind("s1", "ws://b/rpc"), "the server may change")
	err := db.Bind("s2", "ws://b/rpc")
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err), "bound to another share")
	st, err := db.Status()
	require.NoError(t, err)
	assert.Equal(t, sharevat.ShareID("s1"), st.ShareID)
	assert.Equal(t, "ws://b/rpc", st.Server)
}

// TestLockAndMode: the file is 0600; a second Open of a held file fails
// with EUnavailable after the lock timeout; after Close it opens.
func TestLockAndMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "outbox.db")
	db, err := outbox.Open(path, outbox.Options{})
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	start := time.Now()
	_, err = outbox.Open(path, outbox.Options{LockTimeout: 200 * time.Millisecond})
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err))
	assert.Contains(t, sharevat.ErrorMessage(err), "in use")
	assert.GreaterOrEqual(t, time.Since(start), 100*time.Millisecond, "it waits before failing")

	require.NoError(t, db.Close())
	err = db.Enqueue(ops("a", 1), now)
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "closed")
	mustOpenAt(t, path, outbox.Options{})
}
