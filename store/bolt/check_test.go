package bolt_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// richFile returns a closed data file that uses every part of the
// layout: share p with state ops, overwrites and deletes, compacted
// before 6; its forks c (at 8) and e (at 5, compacted alike); share gone,
// deleted with its grants; a child grant, an audit record.
func richFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db, err := bolt.Open(path, bolt.Options{NoSync: true})
	require.NoError(t, err)
	ctx := context.Background()
	createShare(t, db, "p")
	createShare(t, db, "gone")
	for i := range 4 {
		appendOps(t, db, "p", 1, msg(fmt.Sprint("m", i), "k1", i), msg(fmt.Sprint("n", i), fmt.Sprint("k", i), i),
			event(fmt.Sprint("e", i), `{}`), sharevat.Op{OpID: fmt.Sprint("d", i), Kind: sharevat.KindMessage, Key: fmt.Sprint("k", i-1), Delete: true})
	}
	appendOps(t, db, "gone", 1, event("g1", `{}`))
	require.NoError(t, db.CreateGrant(ctx, sharevat.Grant{ID: "kid", ShareID: "p", Parent: "p-owner", Scope: sharevat.ScopeRead, Epoch: 1, CreatedAt: t0}))
	require.NoError(t, db.Audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditMint, ShareID: "p", At: t0}))
	fork(t, db, "p", "c", 8)
	_, err = db.Compact(ctx, "p", 6)
	require.NoError(t, err)
	fork(t, db, "p", "e", 5)
	appendOps(t, db, "p", 1, msg("late", "k1", 9))
	require.NoError(t, db.Delete(ctx, "gone", t0.Add(time.Hour)))
	require.NoError(t, db.Close())
	return path
}

// msg returns a message op upserting key with body {"v":v}.
func msg(id, key string, v int) sharevat.Op {
	return sharevat.Op{OpID: id, Kind: sharevat.KindMessage, Key: key, Body: fmt.Appendf(nil, `{"v":%d}`, v)}
}

// fork forks parent at c into child.
func fork(t *testing.T, db *bolt.DB, parent, child sharevat.ShareID, c sharevat.Cursor) {
	t.Helper()
	s := sharevat.Share{ID: child, Epoch: 1, Meta: sharevat.Meta{Title: "fork", CreatedAt: t0}}
	g := sharevat.Grant{ID: sharevat.GrantID(child) + "-owner", ShareID: child, Scope: sharevat.ScopeOwner, Epoch: 1, CreatedAt: t0}
	_, err := db.Fork(context.Background(), parent, c, s, g)
	require.NoError(t, err)
}

// editFile changes a closed data file with bbolt directly.
func editFile(t *testing.T, path string, fn func(tx *bbolt.Tx) error) {
	t.Helper()
	bdb, err := bbolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	defer bdb.Close()
	require.NoError(t, bdb.Update(fn))
}

// bucket returns the bucket at the path of names.
func bucket(tx *bbolt.Tx, names ...string) *bbolt.Bucket {
	b := tx.Bucket([]byte(names[0]))
	for _, n := range names[1:] {
		b = b.Bucket([]byte(n))
	}
	return b
}

// mustCheck runs Check and fails t on error.
func mustCheck(t *testing.T, path string) []bolt.Problem {
	t.Helper()
	problems, err := bolt.Check(context.Background(), path, 0)
	require.NoError(t, err)
	return problems
}

func TestCheckClean(t *testing.T) {
	path := richFile(t)
	assert.Empty(t, mustCheck(t, path))
	db := MustOpenAt(t, path, bolt.Options{}) // Check left it as it was
	_, head, err := db.Snapshot(context.Background(), "p")
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(17), head)
}

// TestCheckFindsDamage plants one kind of damage at a time in a copy of a
// sound file; Check reports it, naming the share (and the cursor where
// there is one), and never panics.
func TestCheckFindsDamage(t *testing.T) {
	src := richFile(t)
	for _, tc := range []struct {
		name   string
		plant  func(tx *bbolt.Tx) error
		share  sharevat.ShareID
		cursor sharevat.Cursor
		what   string
	}{
		{"body changed", func(tx *bbolt.Tx) error {
			b := bucket(tx, "logs", "c", "log")
			v := append([]byte(nil), b.Get(u64(3))...)
			v[len(v)-2] ^= 1
			return b.Put(u64(3), v)
		}, "c", 3, "digest"},
		{"log record gone", func(tx *bbolt.Tx) error { return bucket(tx, "logs", "c", "log").Delete(u64(4)) }, "c", 4, "is missing from the log"},
		{"op id unindexed", func(tx *bbolt.Tx) error { return bucket(tx, "logs", "p", "ops").Delete([]byte("e3")) }, "p", 0, ""},
		{"compacted op unindexed", func(tx *bbolt.Tx) error {
			b := bucket(tx, "logs", "p", "sealed")
			k, _ := b.Cursor().First()
			return b.Delete(k)
		}, "p", 0, "compacted cursors have no op-id index entry"},
		{"sealed block damaged", func(tx *bbolt.Tx) error {
			b := bucket(tx, "logs", "p", "sealed")
			k, v := b.Cursor().First()
			v = append([]byte(nil), v...)
			return b.Put(append([]byte(nil), k...), v[:len(v)-1])
		}, "p", 0, "sealed index: an entry runs past its block"},
		{"compacted op in both indexes", func(tx *bbolt.Tx) error {
			return bucket(tx, "logs", "p", "ops").Put([]byte("m0"), append(u64(1), make([]byte, 32)...))
		}, "p", 0, "in both the op-id index and the sealed index"},
		{"entity missing", func(tx *bbolt.Tx) error {
			return bucket(tx, "logs", "p", "state").Delete([]byte("message\x00k1"))
		}, "p", 17, "missing from the state"},
		{"deleted entity back", func(tx *bbolt.Tx) error {
			st := bucket(tx, "logs", "c", "state")
			return st.Put([]byte("message\x00k0"), st.Get([]byte("message\x00k1")))
		}, "c", 0, "removed is in the state"},
		{"compacted entity changed", func(tx *bbolt.Tx) error {
			st := bucket(tx, "logs", "e", "state")
			k := []byte("message\x00k1")
			v := append([]byte(nil), st.Get(k)...)
			v[len(v)-2] ^= 1
			return st.Put(k, v)
		}, "e", 0, "digest"},
		{"status index stale", func(tx *bbolt.Tx) error { return bucket(tx, "share_status").Delete([]byte("c")) }, "", 0, "share_status"},
		{"updated index stale", func(tx *bbolt.Tx) error { return bucket(tx, "share_updated").Put([]byte("12345678x"), nil) }, "", 0, "share_updated"},
		{"grant of a deleted share live", func(tx *bbolt.Tx) error {
			g := bucket(tx, "grants")
			v := strings.Replace(string(g.Get([]byte("gone-owner"))), `"revoked":true`, `"revoked":false`, 1)
			return g.Put([]byte("gone-owner"), []byte(v))
		}, "gone", 0, "not revoked"},
		{"deleted share's log back", func(tx *bbolt.Tx) error {
			_, err := bucket(tx, "logs").CreateBucket([]byte("gone"))
			return err
		}, "gone", 0, "deleted"},
		{"share record garbage", func(tx *bbolt.Tx) error { return bucket(tx, "shares").Put([]byte("c"), []byte("\x01{")) }, "c", 0, "share record"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := copyFile(t, src)
			editFile(t, path, tc.plant)
			problems := mustCheck(t, path)
			require.NotEmpty(t, problems, "no problem found")
			found := false
			for _, p := range problems {
				if p.Share == tc.share && (tc.cursor == 0 || p.Cursor == tc.cursor) && strings.Contains(p.String(), tc.what) {
					found = true
				}
			}
			assert.True(t, found, "want a problem of share %q cursor %d about %q; got %v", tc.share, tc.cursor, tc.what, problems)
		})
	}
}

// TestCheckDamagedFile: a file cut short, or with garbage pages, is a
// problem, not a panic or an error.
func TestCheckDamagedFile(t *testing.T) {
	src := bigFile(t, 300)
	fi, err := os.Stat(src)
	require.NoError(t, err)
	cut := copyFile(t, src)
	require.NoError(t, os.Truncate(cut, fi.Size()/2))
	assert.NotEmpty(t, mustCheck(t, cut), "cut in half")
	for p := 2; p < int(fi.Size())/os.Getpagesize(); p += 7 {
		path := copyFile(t, src)
		damagePage(t, path, p, 64, 0xff)
		mustCheck(t, path) // never panics; whatever it finds
	}
	empty := filepath.Join(t.TempDir(), "sharevat.db")
	require.NoError(t, os.WriteFile(empty, nil, 0o600))
	assert.Len(t, mustCheck(t, empty), 1, "an empty file")
}

func TestCheckErrors(t *testing.T) {
	_, err := bolt.Check(context.Background(), filepath.Join(t.TempDir(), "none.db"), 0)
	assert.Error(t, err, "a missing file")
	db := MustOpen(t)
	_, err = bolt.Check(context.Background(), db.Path(), 50*time.Millisecond)
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "a file a running store holds: %v", err)
}
