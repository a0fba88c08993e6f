package wal_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/store/bolt/wal"
)

// TestTornTailEveryOffset: a log cut at every byte of its last records
// reopens with exactly the records that are whole, and takes appends
// after them with the next LSNs.
func TestTornTailEveryOffset(t *testing.T) {
	dir := t.TempDir()
	l, recs, err := wal.Open(dir, 0, wal.Options{})
	require.NoError(t, err)
	require.Empty(t, recs)
	var ends []int64
	seg := filepath.Join(dir, "0000000000000001.wal")
	for i := range 4 {
		_, err := l.Append([]byte{byte(i), 1, 2, 3, 4, 5, 6})
		require.NoError(t, err)
		fi, err := os.Stat(seg)
		require.NoError(t, err)
		ends = append(ends, fi.Size())
	}
	require.NoError(t, l.Close())
	full, err := os.ReadFile(seg)
	require.NoError(t, err)
	for off := int64(0); off <= ends[3]; off++ {
		cut := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(cut, filepath.Base(seg)), full[:off], 0o600))
		l, recs, err := wal.Open(cut, 0, wal.Options{})
		require.NoError(t, err, "offset %d", off)
		whole := 0
		for _, e := range ends {
			if e <= off {
				whole++
			}
		}
		require.Len(t, recs, whole, "offset %d", off)
		for i, r := range recs {
			assert.Equal(t, uint64(i+1), r.LSN)
			assert.Equal(t, byte(i), r.Data[0])
		}
		lsn, err := l.Append([]byte("next"))
		require.NoError(t, err)
		assert.Equal(t, uint64(whole+1), lsn)
		require.NoError(t, l.Close())
		_, recs, err = wal.Open(cut, 0, wal.Options{})
		require.NoError(t, err)
		require.Len(t, recs, whole+1, "offset %d: the torn tail was cut, the new record follows", off)
	}
}

// TestDamageBeforeTheEnd: a bad frame in a segment that is not the last
// is damage, not a torn tail.
func TestDamageBeforeTheEnd(t *testing.T) {
	dir := t.TempDir()
	l, _, err := wal.Open(dir, 0, wal.Options{SegmentBytes: 1})
	require.NoError(t, err)
	for range 3 {
		_, err := l.Append([]byte("record"))
		require.NoError(t, err)
	}
	require.NoError(t, l.Close())
	first := filepath.Join(dir, "0000000000000001.wal")
	b, err := os.ReadFile(first)
	require.NoError(t, err)
	b[len(b)-1] ^= 1
	require.NoError(t, os.WriteFile(first, b, 0o600))
	_, _, err = wal.Open(dir, 0, wal.Options{})
	assert.ErrorIs(t, err, wal.ErrCorrupt)
}

// TestReleaseKeepsTheLast: Release removes the segments the checkpoint
// covers, never the last, and a reopen past it starts at the next LSN.
func TestReleaseKeepsTheLast(t *testing.T) {
	dir := t.TempDir()
	l, _, err := wal.Open(dir, 0, wal.Options{SegmentBytes: 1})
	require.NoError(t, err)
	for range 4 {
		_, err := l.Append([]byte("record"))
		require.NoError(t, err)
	}
	require.Equal(t, 4, l.Segments())
	require.NoError(t, l.Release(4))
	assert.Equal(t, 1, l.Segments())
	require.NoError(t, l.Close())
	l, recs, err := wal.Open(dir, 4, wal.Options{})
	require.NoError(t, err)
	assert.Empty(t, recs)
	assert.Equal(t, uint64(5), l.Next())
	require.NoError(t, l.Close())
}

// TestCeiling runs the raw append ceiling briefly.
func TestCeiling(t *testing.T) {
	r, err := wal.Ceiling(t.Context(), t.TempDir(), wal.CeilingShape{RecordBytes: 300, Records: 2, Duration: 20 * time.Millisecond})
	require.NoError(t, err)
	assert.Positive(t, r.Writes)
	assert.Positive(t, r.P50)
	assert.Equal(t, r.Writes*2, int(r.RecordsPerSec*r.Elapsed.Seconds()+0.5))
}
