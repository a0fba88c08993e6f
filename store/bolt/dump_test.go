package bolt_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/bolt"
)

// TestReadCompacted: a share never compacted has nothing compacted; after
// compacting before cursor 4 (m1 written at 1 and again at 5, m2 at 2
// and never again, an event at 3), ReadCompacted gives the op ids of
// cursors 1..3 with their digests and the base holding m1 as of cursor
// 3, read after a crash and a reopen that replays the write-ahead log: o6,
// appended after the compaction and only in the log, overwrites m2, so
// base holds m2 as of cursor 3 too.
func TestReadCompacted(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db := MustOpenAt(t, path, bolt.Options{ApplyEvery: time.Hour})
	require.NoError(t, db.CreateShare(ctx, sharevat.Share{ID: "s", Epoch: 1},
		sharevat.Grant{ID: "g", ShareID: "s", Epoch: 1, Scope: sharevat.ScopeOwner}))
	ops := []sharevat.Op{
		{OpID: "o1", Kind: sharevat.KindMessage, Key: "m1", Body: []byte(`{"v":1}`)},
		{OpID: "o2", Kind: sharevat.KindMessage, Key: "m2", Body: []byte(`{"v":2}`)},
		{OpID: "o3", Kind: sharevat.KindEvent, Body: []byte(`{}`)},
		{OpID: "o4", Kind: sharevat.KindPart, Key: "p1", Body: []byte(`{"v":4}`)},
		{OpID: "o5", Kind: sharevat.KindMessage, Key: "m1", Body: []byte(`{"v":5}`)},
	}
	for i := range ops {
		appendOne(t, db, &ops[i])
	}
	c, err := db.ReadCompacted(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, sharevat.Compacted{Earliest: 1}, c, "a share never compacted")

	earliest, err := db.Compact(ctx, "s", 4)
	require.NoError(t, err)
	require.Equal(t, sharevat.Cursor(4), earliest)
	appendOne(t, db, &sharevat.Op{OpID: "o6", Kind: sharevat.KindMessage, Key: "m2", Body: []byte(`{"v":6}`)})
	require.NoError(t, bolt.Crash(db))
	db = MustOpenAt(t, path, bolt.Options{ApplyEvery: time.Hour})
	require.Positive(t, bolt.Pending(db), "o6 is only in the write-ahead log")

	c, err = db.ReadCompacted(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(4), c.Earliest)
	require.Len(t, c.Ops, 3)
	for i, ix := range c.Ops {
		assert.Equal(t, ops[i].OpID, ix.OpID)
		assert.Equal(t, sharevat.Cursor(i+1), ix.Cursor)
		assert.True(t, ix.Short && ix.Matches(apply.Digest(&ops[i])), "%s: a short entry of its digest", ix.OpID)
		var other [32]byte
		other[sharevat.ShortDigestLen-1] = 1
		assert.False(t, ix.Matches(other), "%s matches another digest", ix.OpID)
	}
	require.Len(t, c.Base, 2, "m1 as of cursor 3 (written since, at 5), m2 (written again at 6 after the compaction)")
	assert.Equal(t, "m1", c.Base[0].Key)
	assert.Equal(t, sharevat.Cursor(1), c.Base[0].Cursor)
	assert.JSONEq(t, `{"v":1}`, string(c.Base[0].Body))
	assert.Equal(t, "m2", c.Base[1].Key)
	assert.Equal(t, sharevat.Cursor(2), c.Base[1].Cursor)

	_, err = db.ReadCompacted(ctx, "nope")
	assert.Equal(t, sharevat.ENotFound, sharevat.ErrorCode(err))
}

// appendOne appends op to share s in a batch of its own and requires it
// applied.
func appendOne(t *testing.T, db *bolt.DB, op *sharevat.Op) {
	t.Helper()
	res, err := db.Append(context.Background(), sharevat.AppendRequest{Share: "s", Limits: sharevat.DefaultLimits(), Now: time.Now(),
		Batch: &sharevat.Batch{BatchID: "b-" + op.OpID, Epoch: 1, Ops: []sharevat.Op{*op}}})
	require.NoError(t, err)
	require.Equal(t, sharevat.StatusApplied, res.Results[0].Status)
}
