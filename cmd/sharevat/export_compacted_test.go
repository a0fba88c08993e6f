package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// sameContent checks that got holds want's ops in order, with the same
// op ids and content; their cursors may differ.
func sameContent(t *testing.T, want, got []sharevat.Entry) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		w, g := want[i], got[i]
		require.Equal(t, []any{w.OpID, w.Kind, w.Key, string(w.Body), w.Delete}, []any{g.OpID, g.Kind, g.Key, string(g.Body), g.Delete},
			"op %d (cursor %d in the original)", i, w.Cursor)
	}
}

// TestExportCompactedShareRoundTrips: a share whose first 199 ops a
// compaction dropped, appended to since (rewriting and deleting entities
// of its base), is exported in format version 2 — its state at cursor
// 199 as the snapshot tells it, then its ops from cursor 200 — and
// imported into a new share with the same snapshot, the same ops from
// the earliest cursor on (after one op per base entity), and those ops
// still known as duplicates. The import's own export is version 1.
// Before: export refused a compacted share ("was compacted", exit 1).
func TestExportCompactedShareRoundTrips(t *testing.T) {
	onEachStore(t, testExportCompactedShareRoundTrips)
}

func testExportCompactedShareRoundTrips(t *testing.T, on storeKind) {
	x := newXIEnv(t, on)
	owner := createShare(t, x.srv)
	ops := variedOps(340)
	appendBatches(t, x.srv.URL, owner, ops[:300], 100)
	_, stderr, code := x.run(owner, "compact", "--before", "200")
	require.Equal(t, 0, code, stderr)
	appendBatches(t, x.srv.URL, owner, ops[300:], 100)

	file := filepath.Join(t.TempDir(), "compacted.jsonl")
	_, stderr, code = x.run(owner, "export", "--file", file)
	require.Equal(t, 0, code, "export of a compacted share: %s", stderr)
	h := readHeader(t, file)
	assert.Equal(t, []any{float64(2), float64(200), float64(340), float64(141)}, []any{h["version"], h["earliest"], h["head"], h["ops"]})
	base := int(h["base"].(float64))
	require.Positive(t, base, "the state before cursor 200 is in the export")

	imported := x.importFile(file)
	want := readFrom(t, x.srv.URL, owner, 199)
	got := readAll(t, x.srv.URL, imported)
	require.Len(t, got, base+len(want), "one op per base entity, then the log from the earliest cursor")
	for _, e := range got[:base] {
		assert.True(t, strings.HasPrefix(e.OpID, "sharevat-base:"), "base op id %q", e.OpID)
	}
	sameContent(t, want, got[base:])
	assert.Equal(t, snapshotOf(t, x.srv.URL, owner), snapshotOf(t, x.srv.URL, imported), "the snapshots are equal")

	ack := appendAck(t, x.srv.URL, imported, ops[250], ops[320])
	assert.Equal(t, []sharevat.OpStatus{sharevat.StatusDuplicate, sharevat.StatusDuplicate}, []sharevat.OpStatus{ack.Results[0].Status, ack.Results[1].Status},
		"an op from the earliest cursor on is still a duplicate in the imported share")

	again := filepath.Join(t.TempDir(), "again.jsonl")
	_, stderr, code = x.run(imported, "export", "--file", again)
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, float64(1), readHeader(t, again)["version"], "a share never compacted is exported in version 1")
}

// appendAck appends ops to token's share in one batch and returns the ack.
func appendAck(t *testing.T, url, token string, ops ...sharevat.Op) sharevat.Ack {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, app := mustAppender(ctx, t, url, token)
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "again", Epoch: 1, Ops: ops})
	require.NoError(t, err)
	return ack
}

// TestImportReadsFormatVersion1: an export written in version 1 by the
// sharevat before version 2 existed (testdata/export-v1.jsonl) still
// imports, with its ops at their cursors and its snapshot.
func TestImportReadsFormatVersion1(t *testing.T) {
	x := newXIEnv(t, onBolt)
	file := filepath.Join("..", "..", "exportfile", "testdata", "export-v1.jsonl")
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(b), `"version":1`)
	imported := x.importFile(file)
	got := readAll(t, x.srv.URL, imported)
	require.Len(t, got, 5)
	assert.Equal(t, []string{"s1", "m1", "p1", "e1", "d1"}, []string{got[0].OpID, got[1].OpID, got[2].OpID, got[3].OpID, got[4].OpID})
	assert.Equal(t, map[string]string{"session/ses_1": `{"title": "fix the login bug"}`, "message/msg_1": `{"role":"user","text":"hi"}`},
		snapshotOf(t, x.srv.URL, imported))
}
