package bolt

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// format2File writes a data file as a format-2 build left it: shares a
// (busy, updated last), b and c (idle), with no share indexes and the
// format byte 2, the only differences between the formats.
func format2File(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db := mustOpen(t, path)
	for i, id := range []sharevat.ShareID{"a", "b", "c"} {
		at := t0.Add(time.Duration(i) * time.Second)
		s := sharevat.Share{ID: id, Epoch: 1, Meta: sharevat.Meta{Title: "t " + string(id), Status: sharevat.StatusIdle, CreatedAt: at, UpdatedAt: at}}
		owner := sharevat.Grant{ID: sharevat.GrantID(id + "-owner"), ShareID: id, Scope: sharevat.ScopeOwner, Epoch: 1, CreatedAt: at}
		must(t, db.CreateShare(t.Context(), s, owner))
	}
	_, err := db.UpdateMeta(t.Context(), "a", sharevat.MetaPatch{Status: sharevat.StatusBusy}, t0.Add(time.Hour))
	must(t, err)
	must(t, db.bdb.Update(func(tx *bbolt.Tx) error {
		for _, name := range shareIndexes {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyFormat, []byte{2})
	}))
	must(t, db.Close())
	return path
}

// TestFormat2Upgrade: opening a format-2 file builds its share indexes
// and marks it format 3; listing, statuses and Check then work.
func TestFormat2Upgrade(t *testing.T) {
	path := format2File(t)
	db := mustOpen(t, path)
	var format []byte
	must(t, db.bdb.View(func(tx *bbolt.Tx) error {
		format = append(format, tx.Bucket(bucketMeta).Get(keyFormat)...)
		return nil
	}))
	if len(format) != 1 || format[0] != dataFormat {
		t.Errorf("format after open = %v, want [%d]", format, dataFormat)
	}
	list, next, err := db.ListShares(t.Context(), sharevat.ListFilter{})
	must(t, err)
	var got []sharevat.ShareID
	for _, s := range list {
		got = append(got, s.ID)
	}
	if want := []sharevat.ShareID{"a", "c", "b"}; next != "" || len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("ListShares after the upgrade = %v (next %q), want %v", got, next, want)
	}
	st, err := db.Statuses(t.Context())
	must(t, err)
	if len(st) != 3 || st[0].Status != sharevat.StatusBusy || !st[0].StatusAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("Statuses after the upgrade = %+v", st)
	}
	must(t, db.Close())
	problems, err := Check(context.Background(), path, 0)
	must(t, err)
	if len(problems) != 0 {
		t.Errorf("Check after the upgrade: %v", problems)
	}
}

// TestCheckFormat2: Check reads a format-2 file (no share indexes yet)
// without reporting their absence.
func TestCheckFormat2(t *testing.T) {
	problems, err := Check(context.Background(), format2File(t), 0)
	must(t, err)
	if len(problems) != 0 {
		t.Errorf("Check of a format-2 file: %v", problems)
	}
}
