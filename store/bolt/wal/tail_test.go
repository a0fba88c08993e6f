package wal_test

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/store/bolt/wal"
)

// tailLog is a log of two segments whose last holds records of several
// sizes (some crossing 512-byte sectors), every one acknowledged (Append
// returned after its fdatasync).
type tailLog struct {
	dir   string   // the log directory
	last  string   // the last segment's path
	orig  []byte   // its content
	ends  []int    // the offset just past each of its records
	data  [][]byte // every record's data, in LSN order
	first int      // how many records the earlier segment holds
}

// mustTailLog writes a tailLog. The data bytes are never zero: a record
// whose data ends in zeros at a sector boundary cannot be told from a
// power loss's zeroed write (design.md §8), and these tests pin down
// everything else.
func mustTailLog(t *testing.T) *tailLog {
	t.Helper()
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(20, 1))
	tl := &tailLog{dir: dir}
	record := func(n int) []byte {
		d := make([]byte, n)
		for j := range d {
			d[j] = byte(1 + rng.IntN(255))
		}
		tl.data = append(tl.data, d)
		return d
	}
	l, _, err := wal.Open(dir, 0, wal.Options{SegmentBytes: 1})
	require.NoError(t, err)
	for _, n := range []int{120, 200} { // a segment each
		_, err = l.Append(record(n))
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	l, _, err = wal.Open(dir, 0, wal.Options{})
	require.NoError(t, err)
	_, err = l.Append(record(7), record(3)) // one group of two
	require.NoError(t, err)
	for _, n := range []int{300, 700, 40, 1200, 5, 600, 90} {
		_, err = l.Append(record(n))
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	segs, err := filepath.Glob(filepath.Join(dir, "*.wal"))
	require.NoError(t, err)
	require.Len(t, segs, 2, "segments: the first record, then the rest")
	tl.last = segs[len(segs)-1]
	tl.orig, err = os.ReadFile(tl.last)
	require.NoError(t, err)
	tl.first = 1
	for off, i := 0, tl.first; off < len(tl.orig); i++ {
		off += 16 + len(tl.data[i])
		tl.ends = append(tl.ends, off)
	}
	require.Equal(t, len(tl.orig), tl.ends[len(tl.ends)-1])
	require.NotZero(t, (len(tl.orig)-1)%512, "the last byte does not start a sector")
	return tl
}

// scan writes b as the last segment and scans the log. It writes over
// the file in place: truncating it to 0 first makes ext4 write it back
// at once (auto_da_alloc), 4 ms a time.
func (tl *tailLog) scan(t *testing.T, b []byte) (*wal.Scanned, error) {
	t.Helper()
	f, err := os.OpenFile(tl.last, os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteAt(b, 0)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(int64(len(b))))
	require.NoError(t, f.Close())
	return wal.Scan(wal.OS{}, tl.dir)
}

// kept asserts that s holds exactly the earlier segments' records and
// the first whole records of the last segment.
func (tl *tailLog) kept(t *testing.T, s *wal.Scanned, whole int, msg string, args ...any) {
	t.Helper()
	require.Len(t, s.Records, tl.first+whole, append([]any{msg}, args...)...)
	for i, r := range s.Records {
		require.Equal(t, uint64(i+1), r.LSN)
		require.True(t, bytes.Equal(tl.data[i], r.Data), append([]any{"record %d: " + msg, i + 1}, args...)...)
	}
}

// wholeBefore is how many of the last segment's records end at or
// before off.
func (tl *tailLog) wholeBefore(off int) int {
	n := 0
	for _, e := range tl.ends {
		if e <= off {
			n++
		}
	}
	return n
}

// TestLastSegmentEveryByteChanged: a byte of the last segment changed
// at every offset, four ways (a bit flipped, the top bit, zeroed, set to
// 0xff), is refused as damage naming the segment and the offset of the
// first bad frame, never read as a torn tail that drops acknowledged
// records. Before the fix every change but one in the last record was
// cut off as a torn tail with everything after it.
func TestLastSegmentEveryByteChanged(t *testing.T) {
	tl := mustTailLog(t)
	changes := []func(byte) byte{
		func(c byte) byte { return c ^ 0x01 },
		func(c byte) byte { return c ^ 0x80 },
		func(byte) byte { return 0 },
		func(byte) byte { return 0xff },
	}
	refused := 0
	for off := range tl.orig {
		for k, change := range changes {
			b := bytes.Clone(tl.orig)
			if b[off] = change(b[off]); b[off] == tl.orig[off] {
				continue
			}
			_, err := tl.scan(t, b)
			var de *wal.DamageError
			require.True(t, errors.As(err, &de), "offset %d change %d: want damage, got %v", off, k, err)
			require.ErrorIs(t, err, wal.ErrCorrupt)
			rec := tl.wholeBefore(off)
			assert.Equal(t, tl.last, de.Path)
			assert.Equal(t, int64(tlStart(tl, rec)), de.Offset, "offset %d: the damaged frame's start", off)
			assert.Equal(t, uint64(tl.first+rec+1), de.LSN, "offset %d: the damaged record", off)
			refused++
		}
	}
	t.Logf("%d changed bytes in a %d-byte last segment of %d records: all refused", refused, len(tl.orig), len(tl.ends))

	// Open refuses too, and changes nothing.
	b := bytes.Clone(tl.orig)
	b[len(b)/2] ^= 1
	require.NoError(t, os.WriteFile(tl.last, b, 0o600))
	_, _, err := wal.Open(tl.dir, 0, wal.Options{})
	require.ErrorIs(t, err, wal.ErrCorrupt)
	after, err := os.ReadFile(tl.last)
	require.NoError(t, err)
	assert.Equal(t, b, after, "a refused log is left as it was")
}

// tlStart is the offset of the last segment's record i (0-based).
func tlStart(tl *tailLog, i int) int {
	if i == 0 {
		return 0
	}
	return tl.ends[i-1]
}

// TestLastSegmentTornShapes: what a crash leaves at the end of the last
// segment is a torn tail that keeps every record before the tear: the
// file cut at every offset; cut and then zero-filled (preallocated, or
// a size the file system extended without the data); and the end zeroed
// from every sector boundary onwards, at every cut (a power loss that
// lost the last pages of an unsynced write).
func TestLastSegmentTornShapes(t *testing.T) {
	tl := mustTailLog(t)
	for cut := 0; cut <= len(tl.orig); cut++ {
		s, err := tl.scan(t, tl.orig[:cut])
		require.NoError(t, err, "cut at %d", cut)
		tl.kept(t, s, tl.wholeBefore(cut), "cut at %d", cut)
		assert.Equal(t, int64(tlStart(tl, tl.wholeBefore(cut))), s.TailEnd, "cut at %d", cut)

		padded := append(bytes.Clone(tl.orig[:cut]), make([]byte, 700)...)
		s, err = tl.scan(t, padded)
		require.NoError(t, err, "cut at %d, zero-filled", cut)
		tl.kept(t, s, tl.wholeBefore(cut), "cut at %d, zero-filled", cut)

		for z := 0; z < cut; z += 512 {
			b := bytes.Clone(tl.orig[:cut])
			clear(b[z:])
			s, err := tl.scan(t, b)
			require.NoError(t, err, "cut at %d, zeroed from %d", cut, z)
			tl.kept(t, s, tl.wholeBefore(z), "cut at %d, zeroed from %d", cut, z)
		}
	}
}

// TestLastSegmentDamageOpen: Open refuses a last segment whose middle
// was overwritten with zeros (a sector lost in the middle, with the
// records after it whole), and one cut in half whose first half has a
// record damaged; a torn tail followed by zeros opens and appends after
// the last whole record.
func TestLastSegmentDamageOpen(t *testing.T) {
	tl := mustTailLog(t)
	b := bytes.Clone(tl.orig)
	clear(b[512:1024])
	require.NoError(t, os.WriteFile(tl.last, b, 0o600))
	_, _, err := wal.Open(tl.dir, 0, wal.Options{})
	require.ErrorIs(t, err, wal.ErrCorrupt, "zeros in the middle, good records after")

	b = bytes.Clone(tl.orig[:len(tl.orig)/2])
	b[tl.ends[1]+20] ^= 1
	require.NoError(t, os.WriteFile(tl.last, b, 0o600))
	_, _, err = wal.Open(tl.dir, 0, wal.Options{})
	require.ErrorIs(t, err, wal.ErrCorrupt, "cut in half, a byte changed before the cut")

	b = append(bytes.Clone(tl.orig[:tl.ends[4]+9]), make([]byte, 4096)...)
	require.NoError(t, os.WriteFile(tl.last, b, 0o600))
	l, recs, err := wal.Open(tl.dir, 0, wal.Options{})
	require.NoError(t, err)
	assert.Len(t, recs, tl.first+5)
	lsn, err := l.Append([]byte("next"))
	require.NoError(t, err)
	assert.Equal(t, uint64(tl.first+6), lsn)
	require.NoError(t, l.Close())
	_, recs, err = wal.Open(tl.dir, 0, wal.Options{})
	require.NoError(t, err)
	assert.Len(t, recs, tl.first+6, "the torn tail and its zeros were cut; the new record follows")
}
