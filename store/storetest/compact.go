package storetest

import (
	"strings"
	"testing"

	"github.com/sharevat/sharevat"
)

var compactTests = []test{
	{"Basic", testCompactBasic},
	{"ReadBeforeEarliest", testCompactRead},
	{"DuplicatesAnswered", testCompactDuplicates},
	{"StateExact", testCompactStateExact},
	{"EverythingThenAppend", testCompactEverything},
	{"NoOp", testCompactNoOp},
	{"Errors", testCompactErrors},
}

func testCompactBasic(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	entries := workload(t, st, "s")
	earliest, err := st.Compact(t.Context(), "s", 5)
	ok(t, err)
	if earliest != 5 {
		t.Errorf("Compact(5) = %d, want 5", earliest)
	}
	s, err := st.Share(t.Context(), "s")
	ok(t, err)
	if s.Earliest != 5 || s.Head != 18 {
		t.Errorf("share after Compact(5): earliest %d, head %d; want 5, 18", s.Earliest, s.Head)
	}
	checkEntries(t, st, "s", 4, entries[4:])
	checkState(t, st, "s", stateAt(entries, 18), 18)
}

// testCompactRead: a read from before the earliest cursor answers
// compacted, naming it and the cursor to read after (earliest-1: Read
// takes the cursor to read after); from earliest-1 on, reads work.
func testCompactRead(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	appendEvents(t, st, "s", 10)
	_, err := st.Compact(t.Context(), "s", 6)
	ok(t, err)
	for _, after := range []sharevat.Cursor{0, 1, 4} {
		_, _, err := st.Read(t.Context(), "s", after, 10)
		wantCode(t, err, sharevat.ECompacted)
		if msg := sharevat.ErrorMessage(err); !strings.Contains(msg, "cursor 6") || !strings.Contains(msg, "after cursor 5") {
			t.Errorf("compacted error %q does not name the earliest cursor 6 and the cursor to read after, 5", msg)
		}
	}
	page, head, err := st.Read(t.Context(), "s", 5, 2)
	ok(t, err)
	if head != 10 || len(page) != 2 || page[0].Cursor != 6 {
		t.Errorf("Read(after 5) = %d entries from %v, head %d; want cursors 6, 7, head 10", len(page), page, head)
	}
	page, _, err = st.Read(t.Context(), "s", 10, 2)
	ok(t, err)
	if len(page) != 0 {
		t.Errorf("Read(after head) = %d entries, want none", len(page))
	}
}

// testCompactDuplicates: the op-id index stays whole, so a compacted op
// appended again is a duplicate (or idReused) at its original cursor,
// and a dependency on it is met.
func testCompactDuplicates(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	entries := workload(t, st, "s")
	_, err := st.Compact(t.Context(), "s", 12)
	ok(t, err)
	changed := opOf(entries[1])
	changed.Body = []byte(`{"v":"other"}`)
	b := batch(1, opOf(entries[0]), opOf(entries[6]), changed, withDeps(ev("new"), "w1", "w11"), opOf(entries[15]))
	checkAck(t, mustAppend(t, st, "s", b), b, 19, dup(1), dup(7), reused(2), applied(19), dup(16))
	checkState(t, st, "s", stateAt(entries, 18), 19)
}

// testCompactStateExact compacts step by step, appending between steps
// ops that overwrite, delete and re-create entities whose last write was
// compacted; the snapshot always equals the replay of the whole log, and
// forks at each step's earliest-1 and head give the state there.
func testCompactStateExact(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	all := workload(t, st, "s")
	more := [][]sharevat.Op{
		{put("x1", sharevat.KindSession, "ses", `{"title":"three"}`), del("x2", sharevat.KindMessage, "m1")},
		{put("x3", sharevat.KindMessage, "m1", `{"v":"back"}`), put("x4", sharevat.KindMessage, "m2", `{"v":"again"}`), ev("x5")},
		{del("x6", sharevat.KindSessionDiff, "ses"), put("x7", sharevat.KindPart, "p1", `{"text":"last"}`)},
	}
	for i, before := range []sharevat.Cursor{4, 11, 19, 21} {
		earliest, err := st.Compact(t.Context(), "s", before)
		ok(t, err)
		if earliest != before {
			t.Fatalf("Compact(%d) = %d", before, earliest)
		}
		head := sharevat.Cursor(len(all))
		checkState(t, st, "s", stateAt(all, head), head)
		checkEntries(t, st, "s", before-1, all[before-1:])
		for _, c := range []sharevat.Cursor{before - 1, head} {
			id := "f" + string(rune('a'+i)) + map[bool]string{true: "-head", false: "-early"}[c == head]
			mustFork(t, st, "s", id, c)
			checkState(t, st, id, stateAt(all, c), c)
		}
		if i < len(more) {
			mustAppend(t, st, "s", batch(1, more[i]...))
			all, _ = readAllFrom(t, st, "s", all)
		}
	}
}

// readAllFrom returns known followed by share's entries after it.
func readAllFrom(t *testing.T, st sharevat.Store, share string, known []sharevat.Entry) ([]sharevat.Entry, sharevat.Cursor) {
	t.Helper()
	out := append([]sharevat.Entry(nil), known...)
	after := sharevat.Cursor(len(known))
	for {
		page, head, err := st.Read(t.Context(), sharevat.ShareID(share), after, 100)
		ok(t, err)
		if len(page) == 0 {
			return out, head
		}
		out = append(out, page...)
		after = page[len(page)-1].Cursor
	}
}

// testCompactEverything: compacting before head+1 drops every entry; the
// head stays, reads after it work, appends go on at head+1.
func testCompactEverything(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	entries := workload(t, st, "s")
	earliest, err := st.Compact(t.Context(), "s", 19)
	ok(t, err)
	if earliest != 19 {
		t.Fatalf("Compact(19) = %d, want 19", earliest)
	}
	checkLog := func(head sharevat.Cursor) {
		t.Helper()
		s, err := st.Share(t.Context(), "s")
		ok(t, err)
		page, h, err := st.Read(t.Context(), "s", 18, 10)
		ok(t, err)
		if s.Head != head || h != head || int(head)-18 != len(page) {
			t.Fatalf("after compacting everything: share head %d, read head %d, %d entries after 18; want head %d", s.Head, h, len(page), head)
		}
	}
	checkLog(18)
	checkState(t, st, "s", stateAt(entries, 18), 18)
	b := batch(1, opOf(entries[17]), put("n", sharevat.KindMessage, "m1", `{"v":"new"}`))
	checkAck(t, mustAppend(t, st, "s", b), b, 19, dup(18), applied(19))
	checkLog(19)
	all, _ := readAllFrom(t, st, "s", entries)
	checkState(t, st, "s", stateAt(all, 19), 19)
}

func testCompactNoOp(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	earliest, err := st.Compact(t.Context(), "s", 1) // empty log
	ok(t, err)
	if earliest != 1 {
		t.Errorf("Compact(1) of an empty log = %d, want 1", earliest)
	}
	entries := workload(t, st, "s")
	_, err = st.Compact(t.Context(), "s", 6)
	ok(t, err)
	for _, before := range []sharevat.Cursor{0, 1, 6} {
		earliest, err := st.Compact(t.Context(), "s", before)
		ok(t, err)
		if earliest != 6 {
			t.Errorf("Compact(%d) after Compact(6) = %d, want 6", before, earliest)
		}
	}
	checkEntries(t, st, "s", 5, entries[5:])
}

func testCompactErrors(t *testing.T, st sharevat.Store) {
	_, err := st.Compact(t.Context(), "nope", 1)
	wantCode(t, err, sharevat.ENotFound)
	mustShare(t, st, "s")
	appendEvents(t, st, "s", 3)
	_, err = st.Compact(t.Context(), "s", 5)
	wantCode(t, err, sharevat.EInvalid)
	checkLog(t, st, "s", "e1", "e2", "e3")
}
