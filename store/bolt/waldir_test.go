package bolt_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/store/bolt"
)

// TestWALDirElsewhere: with WALDir the log lives there, and the data
// file's own log path links to it, so Check and a later Open without
// WALDir find it (a crash with appends only in the log loses nothing);
// moving a log that holds such appends is refused, and allowed once a
// clean close applied them.
func TestWALDirElsewhere(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "data", "sharevat.db")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	opts := noApply()
	opts.WALDir = filepath.Join(dir, "fast", "wal")
	db := openDB(t, path, opts)
	createShare(t, db, "s")
	appendOps(t, db, "s", 1, event("a", `{}`), event("b", `{}`))
	require.NoError(t, bolt.Crash(db))
	target, err := os.Readlink(path + ".wal")
	require.NoError(t, err)
	assert.Equal(t, opts.WALDir, target)
	requireClean(t, path)

	db = openDB(t, path, noApply()) // no WALDir: found through the link
	_, head := readAll(t, db, "s")
	assert.EqualValues(t, 2, head)
	appendOps(t, db, "s", 1, event("c", `{}`))
	require.NoError(t, bolt.Crash(db))

	moved := noApply()
	moved.WALDir = filepath.Join(dir, "other")
	_, err = bolt.Open(path, moved)
	require.ErrorContains(t, err, "holds appends the data file does not")
	db = openDB(t, path, opts)
	require.NoError(t, db.Close()) // applies the log
	db = openDB(t, path, moved)
	_, head = readAll(t, db, "s")
	assert.EqualValues(t, 3, head)
	appendOps(t, db, "s", 1, event("d", `{}`))
	require.NoError(t, bolt.Crash(db))
	requireClean(t, path)
	db = openDB(t, path, noApply())
	_, head = readAll(t, db, "s")
	assert.EqualValues(t, 4, head)
	require.NoError(t, db.Close())
}
