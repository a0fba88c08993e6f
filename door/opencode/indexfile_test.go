package opencode_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/store/bolt"
)

// TestImportIndexFile: an older build kept the session index in
// <data>/opencode-index.jsonl. Invariant: ImportIndexFile claims its
// live entries in the store (sealed tokens as they were), drops those
// unshared later in the file, skips a torn last line, renames the file
// to ….imported, and does nothing when there is no file.
func TestImportIndexFile(t *testing.T) {
	dir := t.TempDir()
	db, err := bolt.Open(filepath.Join(dir, "vat.db"), bolt.Options{NoSync: true})
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	path := filepath.Join(dir, opencodeshare.IndexFile)
	lines := `{"creator":"open","session":"ses_1","share":"s1","secret":"sealed1","link":"link1","max":7}
{"creator":"g1","session":"ses_2","share":"s2","secret":"sealed2","link":"link2"}
{"share":"s2","deleted":true}
{"creator":"open","session":"ses_3","share":"s3","sec`
	require.NoError(t, os.WriteFile(path, []byte(lines), 0o600))
	require.NoError(t, opencodeshare.ImportIndexFile(t.Context(), db, path))

	got, err := db.DoorSession(t.Context(), "open", "ses_1")
	require.NoError(t, err)
	require.Equal(t, sharevat.DoorSession{Creator: "open", Session: "ses_1", Share: "s1", Secret: "sealed1", Link: "link1", Max: 7}, got, "no creation time: an open create never joins it")
	_, err = db.DoorSession(t.Context(), "g1", "ses_2")
	require.Equal(t, sharevat.ENotFound, sharevat.ErrorCode(err), "an unshared entry")
	_, err = db.DoorSession(t.Context(), "open", "ses_3")
	require.Equal(t, sharevat.ENotFound, sharevat.ErrorCode(err), "a torn line")
	_, err = os.Stat(path)
	require.ErrorIs(t, err, os.ErrNotExist)
	_, err = os.Stat(path + ".imported")
	require.NoError(t, err)
	require.NoError(t, opencodeshare.ImportIndexFile(t.Context(), db, path), "no file: nothing to do")
}
