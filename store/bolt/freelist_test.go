package bolt_test

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat/store/bolt"
)

// freelistPage returns the id of the freelist page of the closed file at
// path (-1 if bbolt did not persist one).
func freelistPage(t *testing.T, path string) int {
	t.Helper()
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, PreLoadFreelist: true})
	require.NoError(t, err)
	defer bdb.Close()
	found := -1
	require.NoError(t, bdb.View(func(tx *bbolt.Tx) error {
		for id := 2; ; id++ {
			info, err := tx.Page(id)
			if err != nil || info == nil {
				return err
			}
			if info.Type == "freelist" {
				found = id
			}
			id += info.OverflowCount
		}
	}))
	return found
}

// TestOpenRefusesDamagedFreelist: a freelist bbolt would misuse (an id
// past the file's end, ids out of order or twice, an id that is the
// freelist itself: pages bbolt would hand out again, overwriting live
// data or the file's end) is refused at Open, though Open does not walk
// the file. (A freelist naming a page deep in a bucket is not: see
// docs/operations.md; Check finds it.)
func TestOpenRefusesDamagedFreelist(t *testing.T) {
	src := bigFile(t, 200)
	fl := freelistPage(t, src)
	require.Positive(t, fl, "the data file persists its freelist")
	ids := freeIDs(t, src, fl)
	require.GreaterOrEqual(t, len(ids), 2, "the freelist has a few free pages")
	for name, id := range map[string]uint64{
		"past the end":   1 << 40,
		"twice":          ids[0],
		"out of order":   0,
		"the freelist":   uint64(fl),
		"the meta pages": 1,
	} {
		t.Run(name, func(t *testing.T) {
			path := copyFile(t, src)
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			require.NoError(t, err)
			defer f.Close()
			_, err = f.WriteAt(binary.NativeEndian.AppendUint64(nil, id), int64(fl*os.Getpagesize()+16+8))
			require.NoError(t, err)
			requireRefused(t, path, name)
		})
	}
}

// freeIDs returns the ids listed on the freelist page fl of path.
func freeIDs(t *testing.T, path string, fl int) []uint64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	page := b[fl*os.Getpagesize():]
	count := int(binary.NativeEndian.Uint16(page[10:]))
	require.Less(t, count, 0xFFFF)
	ids := make([]uint64, count)
	for i := range ids {
		ids[i] = binary.NativeEndian.Uint64(page[16+8*i:])
	}
	return ids
}

// TestOpenWalksFileWithoutFreelist: a file whose freelist was not
// persisted (written by an older build, NoFreelistSync) is walked whole
// at Open, as bbolt rebuilds its freelist by walking it: damage deep in
// it is refused at Open, and a sound one has its freelist persisted.
func TestOpenWalksFileWithoutFreelist(t *testing.T) {
	src := bigFile(t, 200)
	dropFreelist(t, src)
	require.Equal(t, -1, freelistPage(t, src))
	inUse := pagesInUse(t, src)
	deep := len(inUse) - 1
	for ; deep > 2 && !inUse[deep]; deep-- {
	}
	damaged := copyFile(t, src)
	damagePage(t, damaged, deep, 16, 0xff)
	requireRefused(t, damaged, "a page in use, no persisted freelist")

	db, err := bolt.Open(src, bolt.Options{})
	require.NoError(t, err)
	require.NoError(t, db.Close())
	assert.Positive(t, freelistPage(t, src), "the freelist is persisted once opened")
}

// dropFreelist rewrites the closed file at path as an older build left
// it: no persisted freelist.
func dropFreelist(t *testing.T, path string) {
	t.Helper()
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{NoFreelistSync: true})
	require.NoError(t, err)
	require.NoError(t, bdb.Update(func(tx *bbolt.Tx) error {
		return nil // commits a meta page naming no freelist
	}))
	require.NoError(t, bdb.Close())
}

// TestCheckFindsLivePageOnFreelist: a freelist that names a page in use
// deep in a bucket (sorted, in range) passes Open's look at the
// freelist; Check finds it (the trade-off docs/operations.md states).
func TestCheckFindsLivePageOnFreelist(t *testing.T) {
	src := bigFile(t, 200)
	fl := freelistPage(t, src)
	require.Positive(t, fl)
	ids, inUse := freeIDs(t, src, fl), pagesInUse(t, src)
	at, live := -1, uint64(0)
	for i := 0; i < len(ids) && at < 0; i++ {
		lo, hi := uint64(1), uint64(len(inUse))
		if i > 0 {
			lo = ids[i-1]
		}
		if i+1 < len(ids) {
			hi = ids[i+1]
		}
		for q := lo + 1; q < hi && at < 0; q++ {
			if inUse[int(q)] && q != uint64(fl) {
				at, live = i, q
			}
		}
	}
	require.GreaterOrEqual(t, at, 0, "a page in use between two free ones")
	path := copyFile(t, src)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(binary.NativeEndian.AppendUint64(nil, live), int64(fl*os.Getpagesize()+16+8*at))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	problems := mustCheck(t, path)
	assert.NotEmpty(t, problems, "Check finds page %d, in use, on the freelist", live)
	t.Logf("page %d listed free: %v", live, problems)
}
