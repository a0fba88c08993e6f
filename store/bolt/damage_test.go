package bolt_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// withLog opens path with a logger writing to the returned buffer.
func withLog(t *testing.T, path string) (*bolt.DB, *syncBuffer) {
	t.Helper()
	var buf syncBuffer
	db := MustOpenAt(t, path, bolt.Options{Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	return db, &buf
}

// markedFile returns a closed data file holding share s with ops a, b, c:
// a and c events, b a message m; bodies carry the marker text <id>-body.
func markedFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db, err := bolt.Open(path, bolt.Options{})
	require.NoError(t, err)
	createShare(t, db, "s")
	appendOps(t, db, "s", 1, event("op-a", `{"t":"a-body"}`),
		sharevat.Op{OpID: "op-b", Kind: sharevat.KindMessage, Key: "m", Body: []byte(`{"t":"b-body"}`)},
		event("op-c", `{"t":"c-body"}`))
	require.NoError(t, db.Close())
	return path
}

// flipByte edits the file in place, as a disk error would: it flips the
// low bit of the byte at offset off after the n-th occurrence of marker
// (n counts from 0). The file keeps its size.
func flipByte(t *testing.T, path, marker string, n, off int) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	at, from := -1, 0
	for i := 0; i <= n; i++ {
		j := bytes.Index(b[from:], []byte(marker))
		require.GreaterOrEqual(t, j, 0, "occurrence %d of %q in the file", i, marker)
		at, from = from+j, from+j+1
	}
	b[at+off] ^= 1
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

// TestFlippedByteInLogRecord: a flipped byte in a log record's body, op
// id or digest is ECorrupt on Read, never the damaged op, and the log
// names the share and the cursor (and not the body).
func TestFlippedByteInLogRecord(t *testing.T) {
	for _, tc := range []struct {
		name   string
		marker string
		off    int
	}{
		{"body", `{"t":"b-body"}`, 6}, // log record first, state value second
		{"op id", "op-b", 3},          // in the log record: op-b → op-c
		{"digest", "op-b", -10},       // inside the 32-byte digest before the op id's length
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := markedFile(t)
			flipByte(t, path, tc.marker, 0, tc.off)
			db, logs := withLog(t, path)
			entries, _, err := db.Read(t.Context(), "s", 0, 10)
			require.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err), "err %v, entries %+v", err, entries)
			assert.Empty(t, entries, "nothing is served")
			assert.Contains(t, err.Error(), "cursor 2")
			assert.Contains(t, logs.String(), "share=s")
			assert.Contains(t, logs.String(), "cursor=2")
			assert.NotContains(t, logs.String(), "b-body", "op contents never reach the log")
			// The records before the damaged one still read.
			entries, _, err = db.Read(t.Context(), "s", 0, 1)
			require.NoError(t, err)
			assert.Equal(t, "op-a", entries[0].OpID)
		})
	}
}

// TestFlippedByteInState: a flipped byte in an entity is ECorrupt on
// Snapshot, never the damaged body.
func TestFlippedByteInState(t *testing.T) {
	path := markedFile(t)
	flipByte(t, path, `{"t":"b-body"}`, 1, 6) // the state value comes after the log
	db, logs := withLog(t, path)
	ents, _, err := db.Snapshot(t.Context(), "s")
	assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err), "err %v, entities %+v", err, ents)
	assert.Empty(t, ents)
	assert.Contains(t, logs.String(), "share=s")
	_, _, err = db.Read(t.Context(), "s", 0, 10)
	assert.NoError(t, err, "the log itself is intact")
}

// TestFlippedByteInOpIndex: a damaged op-id index entry (its cursor) is
// ECorrupt when a retry looks the op id up, never a duplicate at another
// op's cursor.
func TestFlippedByteInOpIndex(t *testing.T) {
	path := markedFile(t)
	// In the ops bucket the key "op-a" is followed by its 8-byte cursor:
	// the last occurrence of the op id is the index's key.
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	n := bytes.Count(b, []byte("op-a")) - 1
	flipByte(t, path, "op-a", n, len("op-a")+7)
	db, logs := withLog(t, path)
	ack, err := db.Append(t.Context(), sharevat.AppendRequest{
		Share: "s", Batch: &sharevat.Batch{Epoch: 1, Ops: []sharevat.Op{event("op-a", `{"t":"a-body"}`)}},
		Limits: sharevat.DefaultLimits(),
	})
	assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err), "err %v, ack %+v", err, ack)
	assert.Contains(t, logs.String(), "share=s")
	s, err := db.Share(t.Context(), "s")
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(3), s.Head, "nothing was appended")
}

// TestOpenEmptyFile: a 0-byte data file is refused with one line naming
// it, and left as it is; a missing one is created.
func TestOpenEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sharevat.db")
	require.NoError(t, os.WriteFile(path, nil, 0o600))
	db, err := bolt.Open(path, bolt.Options{})
	if err == nil {
		db.Close()
		t.Fatal("Open of a 0-byte data file succeeded")
	}
	assert.Contains(t, err.Error(), path)
	assert.Contains(t, err.Error(), "is empty (0 bytes)")
	assert.Contains(t, err.Error(), "restore it from a backup")
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Zero(t, fi.Size(), "the file is kept as it was")

	fresh := filepath.Join(t.TempDir(), "sharevat.db")
	MustOpenAt(t, fresh, bolt.Options{})
	names, err := filepath.Glob(filepath.Join(filepath.Dir(fresh), "*"))
	require.NoError(t, err)
	assert.Equal(t, []string{fresh, fresh + ".wal"}, names, "no temporary file is left (the write-ahead log's directory is not one)")
}

// bigFile returns a closed data file with share s holding n 1 KB events
// and as many entities.
func bigFile(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db, err := bolt.Open(path, bolt.Options{NoSync: true})
	require.NoError(t, err)
	createShare(t, db, "s")
	body := `{"t":"` + strings.Repeat("x", 1000) + `"}`
	for i := 0; i < n; i += 100 {
		var ops []sharevat.Op
		for j := i; j < i+100 && j < n; j++ {
			ops = append(ops, event(fmt.Sprint("e", j), body),
				sharevat.Op{OpID: fmt.Sprint("m", j), Kind: sharevat.KindMessage, Key: fmt.Sprint(j), Body: []byte(body)})
		}
		appendOps(t, db, "s", 1, ops...)
	}
	require.NoError(t, db.Close())
	return path
}

// useAll runs every read path over share s and one append; it returns
// the first error.
func useAll(db *bolt.DB) error {
	ctx := context.Background()
	var after sharevat.Cursor
	for {
		es, head, err := db.Read(ctx, "s", after, 500)
		if err != nil {
			return err
		}
		if len(es) == 0 || es[len(es)-1].Cursor >= head {
			break
		}
		after = es[len(es)-1].Cursor
	}
	if _, _, err := db.Snapshot(ctx, "s"); err != nil {
		return err
	}
	if _, err := db.Grants(ctx, "s"); err != nil {
		return err
	}
	_, err := db.Append(ctx, sharevat.AppendRequest{
		Share: "s", Batch: &sharevat.Batch{Epoch: 1, Ops: []sharevat.Op{event("new", `{}`)}},
		Limits: sharevat.DefaultLimits(),
	})
	return err
}

// damagePage overwrites n bytes at the start of page p of the file with
// fill, in place.
func damagePage(t *testing.T, path string, p, n int, fill byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	require.NoError(t, err)
	defer f.Close()
	_, err = f.WriteAt(bytes.Repeat([]byte{fill}, n), int64(p*os.Getpagesize()))
	require.NoError(t, err)
}

// copyFile copies src to a new file in a new temporary directory.
func copyFile(t *testing.T, src string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	dst := filepath.Join(t.TempDir(), "sharevat.db")
	require.NoError(t, os.WriteFile(dst, b, 0o600))
	return dst
}

// requireRefused checks that Open refused path with the one line.
func requireRefused(t *testing.T, path string, what string) {
	t.Helper()
	db, err := bolt.Open(path, bolt.Options{})
	if err == nil {
		db.Close()
		t.Fatalf("%s: Open succeeded", what)
	}
	msg := err.Error()
	assert.Contains(t, msg, "the data file "+path+" is damaged: ", what)
	assert.True(t, strings.HasSuffix(msg, "; restore it from a backup"), "%s: %s", what, msg)
	assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err), what)
	assert.NotContains(t, msg, "\n", what)
}

// TestOpenTruncatedFile: a file cut short is refused at Open with one
// line, not a panic, whatever the cut.
func TestOpenTruncatedFile(t *testing.T) {
	src := bigFile(t, 1000)
	fi, err := os.Stat(src)
	require.NoError(t, err)
	for _, frac := range []int64{2, 3, 10} {
		path := copyFile(t, src)
		require.NoError(t, os.Truncate(path, fi.Size()/frac))
		requireRefused(t, path, fmt.Sprintf("cut to 1/%d", frac))
	}
}

// TestOpenDamagedPages overwrites the start of each page in turn (its
// header: id, flags, count, overflow) with zeros or 0xff. Every damaged
// file is either refused at Open with one line, or opens and then every
// call answers or fails with ECorrupt: never a panic, never another
// error. Open reads only the meta pages, the freelist and the top-level
// buckets' roots (boltutil.QuickCheck), so damage deeper in is found by
// the call that reads it or by Check: damage to any page in use (bar one
// meta page, which bbolt survives by using the other) is found by one
// of them.
func TestOpenDamagedPages(t *testing.T) {
	src := bigFile(t, 40)
	fi, err := os.Stat(src)
	require.NoError(t, err)
	pages := int(fi.Size()) / os.Getpagesize()
	inUse := pagesInUse(t, src)
	refused, opened, missed := 0, 0, 0
	for p := 0; p < pages; p++ {
		for _, fill := range []byte{0x00, 0xff} {
			what := fmt.Sprintf("page %d filled with %#x", p, fill)
			path := copyFile(t, src)
			damagePage(t, path, p, 16, fill)
			found := len(mustCheck(t, path)) > 0
			db, err := bolt.Open(path, bolt.Options{})
			if err != nil {
				requireRefused(t, path, what)
				refused++
				continue
			}
			opened++
			err = useAll(db)
			require.NoError(t, db.Close())
			if err != nil {
				assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err), "%s: %v", what, err)
			}
			if p >= 2 && inUse[p] && err == nil && !found {
				missed++
				t.Errorf("%s: a page in use was damaged, and neither Open, the calls nor Check found it", what)
			}
		}
	}
	t.Logf("%d pages: %d damaged files refused at open, %d opened, %d missed", pages, refused, opened, missed)
	assert.Positive(t, refused)
}

// pagesInUse returns, by page id, whether bbolt counts the page of the
// closed file at path as in use (not free).
func pagesInUse(t *testing.T, path string) map[int]bool {
	t.Helper()
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, PreLoadFreelist: true})
	require.NoError(t, err)
	defer bdb.Close()
	used := map[int]bool{}
	require.NoError(t, bdb.View(func(tx *bbolt.Tx) error {
		for id := 0; ; id++ {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				return err
			}
			used[id] = info.Type != "free"
			for o := 1; o <= info.OverflowCount; o++ {
				used[id+o] = used[id]
			}
			id += info.OverflowCount
		}
	}))
	return used
}

// TestDamageFoundLater: pages damaged while the file is open (as a disk
// going bad would) make the calls that reach them fail with ECorrupt,
// logged; the process lives on and the DB still closes.
func TestDamageFoundLater(t *testing.T) {
	path := bigFile(t, 200)
	db, logs := withLog(t, path)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	for p := 3; p < int(fi.Size())/os.Getpagesize(); p++ {
		damagePage(t, path, p, 16, 0xff)
	}
	err = useAll(db)
	assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err), "%v", err)
	assert.Contains(t, logs.String(), "integrity check")
	assert.Contains(t, logs.String(), "stack=", "a panic on a damaged page is logged with its stack")
	require.NoError(t, db.Close())
}
