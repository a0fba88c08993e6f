package storetest

import (
	"testing"

	"github.com/sharevat/sharevat"
)

// Versions of one part, as opencode writes them: a tool part running,
// then completed (a later state.time), and a text part streamed at one
// start time (the longer text is newer).
const (
	toolRunning   = `{"id":"prt_t","state":{"status":"running","time":{"start":5000}}}`
	toolCompleted = `{"id":"prt_t","state":{"status":"completed","time":{"start":5000,"end":6000}}}`
	textShort     = `{"id":"prt_x","text":"Hel","time":{"start":7000}}`
	textLong      = `{"id":"prt_x","text":"Hello","time":{"start":7000}}`
)

// testSnapshotNewestVersionWins: writers of one share (the opencode door,
// each opencode process's plugin) deliver the versions of an item in any
// order. Invariant (apply.Supersedes, docs/design.md §5 "Kinds and
// state"): the snapshot holds the newest version of each key whatever
// order its ops were applied in, in one batch or several; the log keeps
// every op; a body without a stamp keeps last-write-wins; a delete
// removes the entity and an op after it starts the key afresh.
func testSnapshotNewestVersionWins(t *testing.T, st sharevat.Store) {
	for _, tc := range []struct {
		share string
		ops   [][]sharevat.Op
	}{
		{"older-first", [][]sharevat.Op{
			{put("a1", sharevat.KindPart, "t", toolRunning), put("a2", sharevat.KindPart, "x", textShort)},
			{put("a3", sharevat.KindPart, "t", toolCompleted), put("a4", sharevat.KindPart, "x", textLong)},
		}},
		{"newer-first", [][]sharevat.Op{
			{put("a3", sharevat.KindPart, "t", toolCompleted), put("a4", sharevat.KindPart, "x", textLong)},
			{put("a1", sharevat.KindPart, "t", toolRunning), put("a2", sharevat.KindPart, "x", textShort)},
		}},
		{"one-batch", [][]sharevat.Op{{
			put("a3", sharevat.KindPart, "t", toolCompleted), put("a1", sharevat.KindPart, "t", toolRunning),
			put("a4", sharevat.KindPart, "x", textLong), put("a2", sharevat.KindPart, "x", textShort),
		}}},
	} {
		mustShare(t, st, tc.share)
		for _, ops := range tc.ops {
			mustAppend(t, st, tc.share, batch(1, ops...))
		}
		ents, head, err := st.Snapshot(t.Context(), sharevat.ShareID(tc.share))
		ok(t, err)
		if head != 4 {
			t.Errorf("%s: head = %d, want 4: the log keeps every version", tc.share, head)
		}
		got := map[string]string{}
		for _, e := range ents {
			got[e.Key] = string(e.Body)
		}
		if got["t"] != toolCompleted || got["x"] != textLong {
			t.Errorf("%s: the state holds %q and %q, want the newer versions %q and %q", tc.share, got["t"], got["x"], toolCompleted, textLong)
		}
	}

	mustShare(t, st, "plain")
	mustAppend(t, st, "plain", batch(1, put("p1", sharevat.KindMessage, "m", `{"v":2}`), put("m1", sharevat.KindPart, "t", toolCompleted)))
	mustAppend(t, st, "plain", batch(1, put("p2", sharevat.KindMessage, "m", `{"v":1}`), del("m2", sharevat.KindPart, "t")))
	mustAppend(t, st, "plain", batch(1, put("m3", sharevat.KindPart, "t", toolRunning)))
	ents, _, err := st.Snapshot(t.Context(), "plain")
	ok(t, err)
	want := []sharevat.Entity{
		{Kind: sharevat.KindMessage, Key: "m", Body: []byte(`{"v":1}`), Cursor: 3, At: at(100)},
		{Kind: sharevat.KindPart, Key: "t", Body: []byte(toolRunning), Cursor: 5, At: at(100)},
	}
	sameValue(t, "snapshot without stamps, and after a delete", ents, want)
}
