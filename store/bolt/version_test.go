package bolt_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// TestNewestVersionEverywhere: the state keeps the newest version of an
// entity whichever way the data file holds it. Invariant: with a newer
// version appended before an older one, the snapshot shows the newer
// while the ops are only in the write-ahead log's overlay, after the log
// is applied to the data file, without the log (NoWAL), and after a
// compaction past both; and Check finds the state true to the log.
func TestNewestVersionEverywhere(t *testing.T) {
	const newer, older = `{"state":{"status":"completed","time":{"start":5,"end":6}}}`, `{"state":{"status":"running","time":{"start":5}}}`
	for _, opts := range []bolt.Options{{}, {NoWAL: true}} {
		path := filepath.Join(t.TempDir(), "sharevat.db")
		db := MustOpenAt(t, path, opts)
		createShare(t, db, "s")
		appendOps(t, db, "s", 1, sharevat.Op{OpID: "new", Kind: sharevat.KindPart, Key: "m/p", Body: []byte(newer)})
		appendOps(t, db, "s", 1, sharevat.Op{OpID: "old", Kind: sharevat.KindPart, Key: "m/p", Body: []byte(older)})
		shows := func(when string) {
			t.Helper()
			ents, head, err := db.Snapshot(context.Background(), "s")
			require.NoError(t, err)
			require.Len(t, ents, 1, when)
			assert.Equal(t, newer, string(ents[0].Body), "%s (NoWAL %v): the older version appended last is shown", when, opts.NoWAL)
			assert.Equal(t, sharevat.Cursor(1), ents[0].Cursor, when)
			assert.Equal(t, sharevat.Cursor(2), head, when)
		}
		shows("before the log is applied")
		require.NoError(t, db.Flush(context.Background()))
		shows("in the data file")
		_, err := db.Compact(context.Background(), "s", 3)
		require.NoError(t, err)
		shows("after a compaction past both")
		appendOps(t, db, "s", 1, sharevat.Op{OpID: "older-still", Kind: sharevat.KindPart, Key: "m/p", Body: []byte(`{"state":{"time":{"start":1}}}`)})
		require.NoError(t, db.Close())
		assert.Empty(t, mustCheck(t, path), "Check finds the state true to the log")
	}
}
