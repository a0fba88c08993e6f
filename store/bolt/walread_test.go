package bolt_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// appendAt appends ops at epoch 1 to share with the append time now.
func appendAt(t *testing.T, db *bolt.DB, share sharevat.ShareID, now time.Time, ops ...sharevat.Op) {
	t.Helper()
	_, err := db.Append(t.Context(), sharevat.AppendRequest{Share: share, Limits: sharevat.DefaultLimits(), Now: now,
		Batch: &sharevat.Batch{BatchID: "b", Epoch: 1, Ops: ops}})
	require.NoError(t, err)
}

// listed is the ids and heads of every page of ListShares with limit.
func listed(t *testing.T, db *bolt.DB, limit int) (ids []sharevat.ShareID, heads []sharevat.Cursor) {
	t.Helper()
	tok := ""
	for range 10 {
		page, next, err := db.ListShares(t.Context(), sharevat.ListFilter{Limit: limit, PageToken: tok})
		require.NoError(t, err)
		for _, s := range page {
			ids, heads = append(ids, s.ID), append(heads, s.Head)
		}
		if tok = next; tok == "" {
			return ids, heads
		}
	}
	t.Fatal("too many pages")
	return nil, nil
}

// TestWALListingsDoNotApply: a listing, a metadata update, Children and
// Size never wait for the write-ahead log (they used to apply all of it
// with appends held off), and still see every acknowledged append: its
// head, and its update time in the listing's order, across pages and
// across a replay.
func TestWALListingsDoNotApply(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db := openDB(t, path, noApply())
	for _, id := range []sharevat.ShareID{"a", "b", "c"} {
		createShare(t, db, id)
	}
	appendAt(t, db, "b", t0.Add(time.Hour), event("b1", `{}`))
	require.NoError(t, db.Flush(ctx))
	appendAt(t, db, "a", t0.Add(2*time.Hour), event("a1", `{}`), event("a2", `{}`))
	appendAt(t, db, "c", t0.Add(30*time.Minute), event("c1", `{}`))
	require.Equal(t, 2, bolt.Pending(db))

	for _, limit := range []int{0, 1, 2} {
		ids, heads := listed(t, db, limit)
		assert.Equal(t, []sharevat.ShareID{"a", "b", "c"}, ids, "limit %d", limit)
		assert.Equal(t, []sharevat.Cursor{2, 1, 1}, heads, "limit %d", limit)
	}
	page, _, err := db.ListShares(ctx, sharevat.ListFilter{Status: sharevat.StatusBusy})
	require.NoError(t, err)
	assert.Empty(t, page)

	s, err := db.UpdateMeta(ctx, "c", sharevat.MetaPatch{Status: sharevat.StatusBusy}, t0.Add(3*time.Hour))
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(1), s.Head, "the update's answer counts the log")
	assert.Equal(t, sharevat.StatusBusy, s.Meta.Status)
	s, err = db.UpdateMeta(ctx, "a", sharevat.MetaPatch{Status: sharevat.StatusIdle}, t0.Add(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, t0.Add(2*time.Hour), s.Meta.UpdatedAt.UTC(), "an append newer than the update keeps its time")
	assert.Equal(t, 2, bolt.Pending(db), "no metadata update or listing applied the log")
	assert.Positive(t, db.Size())
	assert.Equal(t, 2, bolt.Pending(db), "nor did Size")

	want := []sharevat.ShareID{"c", "a", "b"}
	ids, heads := listed(t, db, 1)
	assert.Equal(t, want, ids)
	assert.Equal(t, []sharevat.Cursor{1, 2, 1}, heads)
	page, _, err = db.ListShares(ctx, sharevat.ListFilter{Status: sharevat.StatusBusy})
	require.NoError(t, err)
	require.Len(t, page, 1)
	assert.Equal(t, sharevat.ShareID("c"), page[0].ID)

	fork(t, db, "c", "k", 1) // a fork applies the log first
	appendAt(t, db, "k", t0.Add(4*time.Hour), event("k1", `{}`))
	kids, err := db.Children(ctx, "c")
	require.NoError(t, err)
	require.Len(t, kids, 1)
	assert.Equal(t, sharevat.Cursor(2), kids[0].Head, "Children counts the log")
	assert.Equal(t, 1, bolt.Pending(db))

	require.NoError(t, bolt.Crash(db))
	db = openDB(t, path, noApply())
	ids, heads = listed(t, db, 2)
	assert.Equal(t, []sharevat.ShareID{"k", "c", "a", "b"}, ids, "after a replay")
	assert.Equal(t, []sharevat.Cursor{2, 1, 2, 1}, heads)
	require.NoError(t, db.Close())
	requireClean(t, path)
	db = openDB(t, path, noApply())
	ids, _ = listed(t, db, 3)
	assert.Equal(t, []sharevat.ShareID{"k", "c", "a", "b"}, ids, "once applied")
	require.NoError(t, db.Close())
}
