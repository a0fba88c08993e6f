package bolt

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// TestSharesIgnoreStaleRecordHead: the share record's head field is
// informational only (doc.go). A record whose field says 5 while the log
// holds 7 ops, as files written before the head was derived hold, lists
// at head 7 in Shares, as Share gives it; a fresh share with ops lists at
// its log's head, not the record's 0.
func TestSharesIgnoreStaleRecordHead(t *testing.T) {
	ctx := t.Context()
	db, err := Open(filepath.Join(t.TempDir(), "sharevat.db"), Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, id := range []sharevat.ShareID{"stale", "fresh"} {
		s := sharevat.Share{ID: id, Epoch: 1}
		g := sharevat.Grant{ID: sharevat.GrantID(id + "-owner"), ShareID: id, Epoch: 1, Scope: sharevat.ScopeOwner}
		if err := db.CreateShare(ctx, s, g); err != nil {
			t.Fatal(err)
		}
	}
	i9Append(t, db, "stale", 7)
	i9Append(t, db, "fresh", 3)
	err = db.update(ctx, "stale head", func(tx *bbolt.Tx) error {
		s, err := decodeShare(tx.Bucket(bucketShares).Get([]byte("stale")))
		if err != nil {
			return err
		}
		old := s
		s.Head = 5
		return putShare(tx, &old, &s)
	})
	if err != nil {
		t.Fatal(err)
	}
	list, err := db.Shares(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[sharevat.ShareID]sharevat.Cursor{"fresh": 3, "stale": 7}
	for _, s := range list {
		one, err := db.Share(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if s.Head != want[s.ID] || one.Head != want[s.ID] {
			t.Errorf("share %s: Shares head %d, Share head %d, want %d", s.ID, s.Head, one.Head, want[s.ID])
		}
	}
	if len(list) != len(want) {
		t.Errorf("Shares listed %d shares, want %d", len(list), len(want))
	}
}

// i9Append appends n event ops to share, one batch.
func i9Append(t *testing.T, db *DB, share sharevat.ShareID, n int) {
	t.Helper()
	b := &sharevat.Batch{BatchID: "b-" + string(share), Epoch: 1}
	for i := range n {
		b.Ops = append(b.Ops, sharevat.Op{OpID: fmt.Sprint(share, i), Kind: sharevat.KindEvent, Body: []byte(`{}`)})
	}
	req := sharevat.AppendRequest{Share: share, Batch: b, Limits: sharevat.DefaultLimits(), Now: time.Now()}
	if _, err := db.Append(t.Context(), req); err != nil {
		t.Fatal(err)
	}
}
