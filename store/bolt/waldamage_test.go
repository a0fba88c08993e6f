package bolt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// TestWALDamagedLastSegment: acknowledged appends still only in the
// log, one byte flipped in the middle of its (last) segment: Open
// refuses with one line (ECorrupt) naming the segment and the offset
// of the damaged record and saying how to recover, Check reports it,
// and nothing is changed. Following the line's advice (cutting the
// segment at that offset) opens with the records before the damage.
// On main Open cut the damage as a torn tail: the share's head went
// from 40 to the records before it, and Check found no problem.
func TestWALDamagedLastSegment(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db := openDB(t, path, noApply())
	createShare(t, db, "s")
	for i := range 20 {
		appendOps(t, db, "s", 1, event(fmt.Sprint("a", i), `{"pad":"`+strings.Repeat("x", 200)+`"}`), event(fmt.Sprint("b", i), `{}`))
	}
	require.NoError(t, bolt.Crash(db))
	seg := segment(t, path)
	b, err := os.ReadFile(seg)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x10
	require.NoError(t, os.WriteFile(seg, b, 0o600))

	_, err = bolt.Open(path, noApply())
	require.Error(t, err)
	assert.Equal(t, sharevat.ECorrupt, sharevat.ErrorCode(err))
	line := err.Error()
	t.Log(line)
	assert.NotContains(t, line, "\n")
	assert.Contains(t, line, "the write-ahead log segment "+seg+" is damaged at offset ")
	assert.Contains(t, line, "this is not the torn tail a crash leaves")
	off := damagedOffset(t, line)
	assert.Contains(t, line, fmt.Sprintf("'truncate -s %d %s'", off, seg))
	after, err := os.ReadFile(seg)
	require.NoError(t, err)
	assert.Equal(t, b, after, "nothing was changed")

	problems, err := bolt.Check(t.Context(), path, 0)
	require.NoError(t, err)
	require.Len(t, problems, 1, "Check finds the damage")
	assert.Contains(t, problems[0].String(), seg)

	require.NoError(t, os.Truncate(seg, off))
	db = openDB(t, path, noApply())
	_, head := readAll(t, db, "s")
	assert.Less(t, head, sharevat.Cursor(40), "the records from the damage on were given up")
	assert.Greater(t, head, sharevat.Cursor(10), "the records before it are there")
	require.NoError(t, db.Close())
	requireClean(t, path)
}

// damagedOffset is the offset the refusal line names.
func damagedOffset(t *testing.T, line string) int64 {
	t.Helper()
	var off int64
	_, rest, ok := strings.Cut(line, " is damaged at offset ")
	require.True(t, ok, line)
	_, err := fmt.Sscan(rest, &off)
	require.NoError(t, err, line)
	return off
}
