package bolt

import (
	"encoding/binary"
	"path/filepath"
	"testing"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// oldFormatFile writes a data file as a build without the grant index
// left it (format 1): share s with s-owner → a → {a1 (revoked), a2 (expired at
// t0+1h), a3}, s-owner → b, and share t with t-owner → x; then it drops
// the grant_children bucket and sets the format byte back to 1, the only
// differences between the formats.
func oldFormatFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "old.db")
	db := mustOpen(t, path)
	for _, s := range []sharevat.ShareID{"s", "t"} {
		owner := sharevat.Grant{ID: sharevat.GrantID(s + "-owner"), ShareID: s, Scope: sharevat.ScopeOwner, Epoch: 1, CreatedAt: t0}
		must(t, db.CreateShare(t.Context(), sharevat.Share{ID: s, Epoch: 1}, owner))
	}
	a2 := kid("s", "a", "a2", 3)
	a2.ExpiresAt = t0.Add(time.Hour)
	for _, g := range []sharevat.Grant{kid("s", "s-owner", "a", 1), kid("s", "a", "a1", 2), a2,
		kid("s", "a", "a3", 4), kid("s", "s-owner", "b", 5), kid("t", "t-owner", "x", 6)} {
		must(t, db.CreateGrant(t.Context(), g))
	}
	must(t, db.RevokeGrants(t.Context(), []sharevat.GrantID{"a1"}, t0.Add(time.Minute)))
	must(t, db.bdb.Update(func(tx *bbolt.Tx) error {
		if err := tx.Bucket(bucketMeta).Put(keyFormat, []byte{1}); err != nil {
			return err
		}
		return tx.DeleteBucket(bucketGrantChildren)
	}))
	must(t, db.Close())
	return path
}

// TestOldFileUpgrade: opening a format-1 file builds its grant index and
// marks it format 2, which a build that reads only format 1 refuses.
func TestOldFileUpgrade(t *testing.T) {
	path := oldFormatFile(t)
	db := mustOpen(t, path)
	var format []byte
	must(t, db.bdb.View(func(tx *bbolt.Tx) error {
		format = append(format, tx.Bucket(bucketMeta).Get(keyFormat)...)
		if tx.Bucket(bucketGrantChildren) == nil {
			t.Error("no grant index after open")
		}
		return nil
	}))
	if len(format) != 1 || format[0] != dataFormat {
		t.Errorf("format after open = %v, want [%d]", format, dataFormat)
	}
	checkIndex(t, db, oldIndex())
}

// kid is grant id of share s minted from parent, n seconds after t0.
func kid(s, parent, id string, n int) sharevat.Grant {
	return sharevat.Grant{ID: sharevat.GrantID(id), ShareID: sharevat.ShareID(s), Parent: sharevat.GrantID(parent),
		Scope: sharevat.ScopeRead, Epoch: 1, CreatedAt: t0.Add(time.Duration(n) * time.Second)}
}

// oldIndex is the grant_children index oldFormatFile's grants must
// have: parent/child → revoked flag and expiry.
func oldIndex() map[string]string {
	return map[string]string{
		"s-owner/a": "live, never", "a/a1": "revoked, never", "a/a2": "live, " + t0.Add(time.Hour).String(),
		"a/a3": "live, never", "s-owner/b": "live, never", "t-owner/x": "live, never",
	}
}

// TestOldFileSubtree: opening a file without the index and listing a
// subtree builds the index, whole and right.
func TestOldFileSubtree(t *testing.T) {
	db := mustOpen(t, oldFormatFile(t))
	got, err := db.Subtree(t.Context(), "a")
	must(t, err)
	if ids := grantIDs(got); ids != "a a1 a2 a3" {
		t.Fatalf("Subtree(a) = %s, want a a1 a2 a3", ids)
	}
	checkIndex(t, db, oldIndex())
}

// TestOldFileQuota: on a file without the index, the first quota check
// builds it and counts only live children (a1 revoked, a2 expired).
func TestOldFileQuota(t *testing.T) {
	db := mustOpen(t, oldFormatFile(t))
	late := kid("s", "a", "a4", 7200) // a2 has expired by then
	if err := db.CreateChild(t.Context(), late, 2); err != nil {
		t.Fatalf("CreateChild with one live child of 2 allowed: %v", err)
	}
	if code := sharevat.ErrorCode(db.CreateChild(t.Context(), kid("s", "a", "a5", 7201), 2)); code != sharevat.ETooLarge {
		t.Fatalf("CreateChild over the quota: code %q, want tooLarge", code)
	}
	want := oldIndex()
	want["a/a4"] = "live, never"
	checkIndex(t, db, want)
}

// checkIndex fails t unless the index holds exactly want.
func checkIndex(t *testing.T, db *DB, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	must(t, db.bdb.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketGrantChildren).ForEach(func(k, v []byte) error {
			n, w := binary.Uvarint(k)
			g, err := getGrant(tx, sharevat.GrantID(k[w+int(n):]))
			if err != nil {
				return err
			}
			got[string(g.Parent)+"/"+string(g.ID)] = describe(t, v)
			return nil
		})
	}))
	if len(got) != len(want) {
		t.Fatalf("index = %v, want %v", got, want)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("index %s = %q, want %q", k, got[k], w)
		}
	}
}

// describe renders an index value as "live|revoked, expiry".
func describe(t *testing.T, v []byte) string {
	t.Helper()
	if len(v) != childValueLen {
		t.Fatalf("index value %x: %d bytes", v, len(v))
	}
	state, exp := "live", "never"
	if v[1] == 1 {
		state = "revoked"
	}
	if at := fromUnixNano(binary.BigEndian.Uint64(v[2:])); !at.IsZero() {
		exp = at.String()
	}
	return state + ", " + exp
}

func grantIDs(gs []sharevat.Grant) string {
	s := ""
	for i, g := range gs {
		if i > 0 {
			s += " "
		}
		s += string(g.ID)
	}
	return s
}

func mustOpen(t *testing.T, path string) *DB {
	t.Helper()
	db, err := Open(path, Options{})
	must(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
