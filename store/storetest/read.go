package storetest

import (
	"fmt"
	"testing"

	"github.com/sharevat/sharevat"
)

var readTests = []test{
	{"Paging", testReadPaging},
	{"Empty", testReadEmpty},
	{"Errors", testReadErrors},
	{"NoAliasing", testReadNoAliasing},
}

var snapshotTests = []test{
	{"Empty", testSnapshotEmpty},
	{"UpsertAndOrder", testSnapshotUpsertAndOrder},
	{"Delete", testSnapshotDelete},
	{"NewestVersionWins", testSnapshotNewestVersionWins},
	{"NotFound", testSnapshotNotFound},
}

// appendEvents appends n events <prefix>1..<prefix>n in one batch; the
// prefix defaults to "e".
func appendEvents(t *testing.T, st sharevat.Store, share string, n int, prefix ...string) {
	t.Helper()
	p := "e"
	if len(prefix) > 0 {
		p = prefix[0]
	}
	var ops []sharevat.Op
	for i := 1; i <= n; i++ {
		ops = append(ops, ev(fmt.Sprintf("%s%d", p, i)))
	}
	mustAppend(t, st, share, batch(1, ops...))
}

func testReadPaging(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	appendEvents(t, st, "s", 10)
	for _, tc := range []struct {
		after      sharevat.Cursor
		limit      int
		first, end sharevat.Cursor // want cursors first..end-1
	}{
		{0, 3, 1, 4}, {3, 3, 4, 7}, {6, 3, 7, 10}, {9, 3, 10, 11}, {10, 3, 11, 11},
		{0, 100, 1, 11}, {4, 1, 5, 6}, {99, 5, 100, 100}, {^sharevat.Cursor(0), 5, 0, 0},
	} {
		entries, head, err := st.Read(t.Context(), "s", tc.after, tc.limit)
		ok(t, err)
		if head != 10 || len(entries) != int(tc.end-tc.first) {
			t.Fatalf("Read(after %d, limit %d) = %d entries, head %d; want %d, head 10", tc.after, tc.limit, len(entries), head, tc.end-tc.first)
		}
		for i, e := range entries {
			if want := tc.first + sharevat.Cursor(i); e.Cursor != want || e.OpID != fmt.Sprintf("e%d", want) {
				t.Errorf("Read(after %d): entry %d = cursor %d op %q, want cursor %d", tc.after, i, e.Cursor, e.OpID, want)
			}
		}
	}
}

func testReadEmpty(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	entries, head, err := st.Read(t.Context(), "s", 0, 10)
	ok(t, err)
	if len(entries) != 0 || head != 0 {
		t.Fatalf("Read of an empty log = %d entries, head %d; want none, head 0", len(entries), head)
	}
}

func testReadErrors(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	for _, limit := range []int{0, -1} {
		_, _, err := st.Read(t.Context(), "s", 0, limit)
		wantCode(t, err, sharevat.EInvalid)
	}
	_, _, err := st.Read(t.Context(), "nope", 0, 10)
	wantCode(t, err, sharevat.ENotFound)
}

// testReadNoAliasing: entries and entities stay valid and unchanged after
// later writes grow the store, and changing them does not change the
// store. The log and state are made large enough not to be inlined.
func testReadNoAliasing(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	body := []byte(`{"v":"original"}`)
	ops := []sharevat.Op{put("a", sharevat.KindMessage, "k", string(body))}
	for i := range 100 {
		ops = append(ops, put(fmt.Sprintf("p%d", i), sharevat.KindPart, fmt.Sprint(i), jsonOf(100)))
	}
	mustAppend(t, st, "s", batch(1, ops...))
	first, _ := readAll(t, st, "s")
	snap, _, err := st.Snapshot(t.Context(), "s")
	ok(t, err)
	if len(first) != len(ops) || len(snap) != len(ops) {
		t.Fatalf("read %d entries and %d entities, want %d of each", len(first), len(snap), len(ops))
	}
	for i := range 5 {
		appendEvents(t, st, "s", 1000, fmt.Sprintf("g%d-", i)) // grow the store
	}
	sameBytes(t, "body read before later writes", first[0].Body, body)
	sameBytes(t, "entity read before later writes", snap[0].Body, body)
	copy(first[0].Body, "XXXX")
	copy(snap[0].Body, "XXXX")
	again, _, err := st.Read(t.Context(), "s", 0, 1)
	ok(t, err)
	if len(again) != 1 || len(snap) == 0 {
		t.Fatalf("second read: %d entries, %d entities; want some", len(again), len(snap))
	}
	sameBytes(t, "body after changing a read copy", again[0].Body, body)
	snap, _, err = st.Snapshot(t.Context(), "s")
	ok(t, err)
	if len(snap) == 0 {
		t.Fatal("second snapshot is empty")
	}
	sameBytes(t, "entity after changing a read copy", snap[0].Body, body)
}

func testSnapshotEmpty(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	appendEvents(t, st, "s", 2) // events are not state
	ents, head, err := st.Snapshot(t.Context(), "s")
	ok(t, err)
	if len(ents) != 0 || head != 2 {
		t.Fatalf("Snapshot = %d entities, head %d; want none, head 2", len(ents), head)
	}
}

func testSnapshotUpsertAndOrder(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustAppend(t, st, "s", batch(1,
		put("1", sharevat.KindMessage, "b", `{"v":1}`),
		put("2", sharevat.KindPart, "a", `{}`),
		put("3", sharevat.KindMessage, "a", `{}`),
		ev("4"),
		put("5", sharevat.KindSession, "s", `{"title":"t"}`),
		put("6", sharevat.KindSessionDiff, "s", `[]`),
		put("7", sharevat.KindModel, "z", `{}`),
	))
	mustAppend(t, st, "s", batch(1, put("8", sharevat.KindMessage, "b", `{"v":2}`)))
	ents, head, err := st.Snapshot(t.Context(), "s")
	ok(t, err)
	if head != 8 {
		t.Errorf("snapshot head = %d, want 8", head)
	}
	entity := func(kind, key, body string, c sharevat.Cursor) sharevat.Entity {
		return sharevat.Entity{Kind: kind, Key: key, Body: []byte(body), Cursor: c, At: at(100)}
	}
	sameValue(t, "snapshot", ents, []sharevat.Entity{
		entity(sharevat.KindMessage, "a", `{}`, 3),
		entity(sharevat.KindMessage, "b", `{"v":2}`, 8),
		entity(sharevat.KindModel, "z", `{}`, 7),
		entity(sharevat.KindPart, "a", `{}`, 2),
		entity(sharevat.KindSession, "s", `{"title":"t"}`, 5),
		entity(sharevat.KindSessionDiff, "s", `[]`, 6),
	})
}

func testSnapshotDelete(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustAppend(t, st, "s", batch(1,
		put("1", sharevat.KindMessage, "a", `{}`),
		put("2", sharevat.KindMessage, "b", `{}`),
		del("3", sharevat.KindMessage, "a"),
		del("4", sharevat.KindMessage, "never"), // deleting nothing is fine
		del("5", sharevat.KindPart, "b"),        // same key, other kind
	))
	ents, head, err := st.Snapshot(t.Context(), "s")
	ok(t, err)
	want := []sharevat.Entity{{Kind: sharevat.KindMessage, Key: "b", Body: []byte(`{}`), Cursor: 2, At: at(100)}}
	sameValue(t, "snapshot", ents, want)
	if head != 5 {
		t.Errorf("snapshot head = %d, want 5", head)
	}
	mustAppend(t, st, "s", batch(1, put("6", sharevat.KindMessage, "a", `{"back":true}`)))
	ents, _, err = st.Snapshot(t.Context(), "s")
	ok(t, err)
	if len(ents) != 2 || ents[0].Key != "a" || ents[0].Cursor != 6 {
		t.Errorf("snapshot after re-creating a = %+v, want a at cursor 6 then b", ents)
	}
}

func testSnapshotNotFound(t *testing.T, st sharevat.Store) {
	_, _, err := st.Snapshot(t.Context(), "nope")
	wantCode(t, err, sharevat.ENotFound)
}
