package bolt_test

import (
	"context"
	"encoding/binary"
	"path/filepath"
	"sync"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// corruptFile writes value under the bucket path and key in a closed data
// file, using bbolt directly and the layout of doc.go.
func corruptFile(t *testing.T, path string, key, value []byte, buckets ...string) {
	t.Helper()
	bdb, err := bbolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bbolt.Tx) error {
		b := tx.Bucket([]byte(buckets[0]))
		for _, name := range buckets[1:] {
			b = b.Bucket([]byte(name))
		}
		return b.Put(key, value)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// seeded returns the path of a closed data file holding share s with
// three events, an extra grant g and an audit record.
func seeded(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db, err := bolt.Open(path, bolt.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	createShare(t, db, "s")
	appendOps(t, db, "s", 1, event("a", `{}`), event("b", `{}`),
		sharevat.Op{OpID: "c", Kind: sharevat.KindModel, Key: "m", Body: []byte(`{}`)})
	ctx := context.Background()
	if err := db.CreateGrant(ctx, sharevat.Grant{ID: "g", ShareID: "s", Epoch: 1}); err != nil {
		t.Fatal(err)
	}
	if err := db.Audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditMint, ShareID: "s"}); err != nil {
		t.Fatal(err)
	}
	return path
}

func u64(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// TestCorruptRecords: a damaged value is ECorrupt, never a panic and
// never the damaged data.
func TestCorruptRecords(t *testing.T) {
	entry := func(db *bolt.DB) error { _, _, err := db.Read(context.Background(), "s", 0, 10); return err }
	for _, tc := range []struct {
		name    string
		buckets []string
		key     []byte
		value   []byte
		call    func(db *bolt.DB) error
	}{
		{"share bad JSON", []string{"shares"}, []byte("s"), []byte("\x01{"), entry},
		{"share bad version", []string{"shares"}, []byte("s"), []byte("\x09{}"), func(db *bolt.DB) error { _, err := db.Shares(context.Background()); return err }},
		{"share empty", []string{"shares"}, []byte("s"), []byte{}, func(db *bolt.DB) error { _, err := db.Share(context.Background(), "s"); return err }},
		{"grant", []string{"grants"}, []byte("g"), []byte("\x01[1,2]"), func(db *bolt.DB) error { _, err := db.Grant(context.Background(), "g"); return err }},
		{"grant list", []string{"grants"}, []byte("g"), []byte("x"), func(db *bolt.DB) error { _, err := db.Grants(context.Background(), "s"); return err }},
		{"grant index names a missing grant", []string{"share_grants"}, []byte("\x01sghost"), []byte{}, func(db *bolt.DB) error { _, err := db.Grants(context.Background(), "s"); return err }},
		{"revoke", []string{"grants"}, []byte("g"), []byte("x"), func(db *bolt.DB) error {
			return db.RevokeGrants(context.Background(), []sharevat.GrantID{"g"}, t0)
		}},
		{"entry truncated", []string{"logs", "s", "log"}, u64(2), []byte{1, 0, 1, 2}, entry},
		{"entry field overrun", []string{"logs", "s", "log"}, u64(2), append(append([]byte{1}, make([]byte, 45)...), 0xff, 0xff, 0x7f), entry},
		{"entry trailing bytes", []string{"logs", "s", "log"}, u64(2), append(append([]byte{1}, make([]byte, 45)...), 0, 0, 0, 0, 0, 9), entry},
		{"entry bad flags", []string{"logs", "s", "log"}, u64(2), append([]byte{1, 0x80}, make([]byte, 49)...), entry},
		{"entity", []string{"logs", "s", "state"}, []byte("model\x00m"), []byte{1, 2, 3}, func(db *bolt.DB) error { _, _, err := db.Snapshot(context.Background(), "s"); return err }},
		{"entity key", []string{"logs", "s", "state"}, []byte("nokey"), make([]byte, 20), func(db *bolt.DB) error { _, _, err := db.Snapshot(context.Background(), "s"); return err }},
		{"op index", []string{"logs", "s", "ops"}, []byte("a"), []byte{0, 1}, func(db *bolt.DB) error {
			_, err := db.Append(context.Background(), sharevat.AppendRequest{Share: "s", Batch: &sharevat.Batch{Epoch: 1, Ops: []sharevat.Op{event("a", `{}`)}}, Limits: sharevat.DefaultLimits()})
			return err
		}},
		{"audit", []string{"audit"}, u64(1), []byte("\x01{"), func(db *bolt.DB) error { _, err := db.AuditLog(context.Background(), "s", 0, 10); return err }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := seeded(t)
			corruptFile(t, path, tc.key, tc.value, tc.buckets...)
			db := MustOpenAt(t, path, bolt.Options{})
			err := tc.call(db)
			if code := sharevat.ErrorCode(err); code != sharevat.ECorrupt {
				t.Fatalf("code %q (%v), want corrupt", code, err)
			}
		})
	}
}

func TestUnknownFormat(t *testing.T) {
	path := seeded(t)
	corruptFile(t, path, []byte("format"), []byte{5}, "sharevat")
	if db, err := bolt.Open(path, bolt.Options{}); err == nil {
		db.Close()
		t.Fatal("Open of a format 5 file succeeded")
	}
}

// TestGroupIsolatesFailures: appends that fail with a store error (a
// corrupt share record) fail alone; appends committed alongside them in
// the same group succeed.
func TestGroupIsolatesFailures(t *testing.T) {
	path := seeded(t)
	corruptFile(t, path, []byte("bad"), []byte("\x01{"), "shares")
	db := MustOpenAt(t, path, bolt.Options{})
	createShare(t, db, "good")
	var wg sync.WaitGroup
	errs := make([]error, 64)
	for i := range errs {
		share := sharevat.ShareID("good")
		if i%2 == 1 {
			share = "bad"
		}
		wg.Go(func() {
			_, errs[i] = db.Append(context.Background(), sharevat.AppendRequest{
				Share: share, Batch: &sharevat.Batch{Epoch: 1, Ops: []sharevat.Op{event(string(rune('A'+i)), `{}`)}},
				Limits: sharevat.DefaultLimits(),
			})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if want := map[bool]sharevat.Code{false: "", true: sharevat.ECorrupt}[i%2 == 1]; sharevat.ErrorCode(err) != want {
			t.Errorf("append %d: code %q (%v), want %q", i, sharevat.ErrorCode(err), err, want)
		}
	}
	if s, err := db.Share(context.Background(), "good"); err != nil || s.Head != 32 {
		t.Errorf("good share head = %d (%v), want 32", s.Head, err)
	}
}
