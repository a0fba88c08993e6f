package storetest

import (
	"testing"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// appendTests cover the append semantics of docs/design.md §5.
var appendTests = []test{
	{"Cursors", testAppendCursors},
	{"UnknownShare", testAppendUnknownShare},
	{"EntryFields", testAppendEntryFields},
	{"RetryIsDuplicate", testRetryIsDuplicate},
	{"RegroupedRetry", testRegroupedRetry},
	{"IDReused", testIDReused},
	{"DuplicateInBatch", testDuplicateInBatch},
	{"StaleEpoch", testStaleEpoch},
	{"MissingDependency", testMissingDependency},
	{"DependencyInBatch", testDependencyInBatch},
	{"ExpectedCursor", testExpectedCursor},
	{"RejectedTakeNoCursor", testRejectedTakeNoCursor},
	{"RejectedIDNotIndexed", testRejectedIDNotIndexed},
	{"Invalid", testInvalid},
}

func testAppendCursors(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	b1 := batch(1, ev("a"), ev("b"), ev("c"))
	checkAck(t, mustAppend(t, st, "s", b1), b1, 3, applied(1), applied(2), applied(3))
	b2 := batch(1, ev("d"), ev("e"))
	checkAck(t, mustAppend(t, st, "s", b2), b2, 5, applied(4), applied(5))
	checkLog(t, st, "s", "a", "b", "c", "d", "e")
}

func testAppendUnknownShare(t *testing.T, st sharevat.Store) {
	_, err := tryAppend(t, st, "nope", batch(1, ev("a")), sharevat.DefaultLimits())
	wantCode(t, err, sharevat.ENotFound)
	_, err = st.Share(t.Context(), "nope")
	wantCode(t, err, sharevat.ENotFound)
}

func testAppendEntryFields(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	b := batch(1, ev("a"), put("b", sharevat.KindMessage, "m1", `{"text":"hi"}`), del("c", sharevat.KindPart, "p1"))
	b.BatchID = "batch-1"
	mustAppend(t, st, "s", b)
	entries, _ := readAll(t, st, "s")
	var want []sharevat.Entry
	for i, op := range b.Ops {
		want = append(want, sharevat.Entry{
			Cursor: sharevat.Cursor(i + 1), OpID: op.OpID, BatchID: "batch-1", Seq: op.Seq,
			Kind: op.Kind, Key: op.Key, Body: op.Body, Delete: op.Delete, At: at(100),
			Digest: apply.Digest(&op),
		})
	}
	sameValue(t, "log", entries, want)
}

func testRetryIsDuplicate(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustAppend(t, st, "s", batch(1, ev("x")))
	b := batch(1, ev("a"), put("b", sharevat.KindSession, "s", `{}`), del("c", sharevat.KindModel, "m"))
	checkAck(t, mustAppend(t, st, "s", b), b, 4, applied(2), applied(3), applied(4))
	checkAck(t, mustAppend(t, st, "s", b), b, 4, dup(2), dup(3), dup(4))
	checkLog(t, st, "s", "x", "a", "b", "c")
}

func testRegroupedRetry(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustAppend(t, st, "s", batch(1, ev("a"), ev("b"), ev("c")))
	b := batch(1, ev("c"), ev("d"), ev("a"))
	b.BatchID = "another"
	checkAck(t, mustAppend(t, st, "s", b), b, 4, dup(3), applied(4), dup(1))
	checkLog(t, st, "s", "a", "b", "c", "d")
}

func testIDReused(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustAppend(t, st, "s", batch(1, ev("e"), put("m", sharevat.KindMessage, "k", `{"v":1}`)))
	b := batch(1,
		put("m", sharevat.KindMessage, "k", `{"v":2}`),  // other body
		put("m", sharevat.KindMessage, "k2", `{"v":1}`), // other key
		put("m", sharevat.KindPart, "k", `{"v":1}`),     // other kind
		del("m", sharevat.KindMessage, "k"),             // delete
		put("e", sharevat.KindEvent, "", `{"id":"e"}`),  // same content: duplicate
	)
	checkAck(t, mustAppend(t, st, "s", b), b, 2, reused(2), reused(2), reused(2), reused(2), dup(1))
	checkLog(t, st, "s", "e", "m")
}

func testDuplicateInBatch(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	b := batch(1, ev("a"), ev("a"), put("b", sharevat.KindMessage, "k", `1`), put("b", sharevat.KindMessage, "k", `2`))
	checkAck(t, mustAppend(t, st, "s", b), b, 2, applied(1), dup(1), applied(2), reused(2))
	checkLog(t, st, "s", "a", "b")
}

func testStaleEpoch(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	for _, epoch := range []sharevat.Epoch{0, 2} {
		b := batch(epoch, ev("a"), ev("b"))
		stale := rejected(sharevat.ReasonStaleEpoch)
		checkAck(t, mustAppend(t, st, "s", b), b, 0, stale, stale)
	}
	checkLog(t, st, "s")
}

func testMissingDependency(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustAppend(t, st, "s", batch(1, ev("a")))
	b := batch(1, withDeps(ev("b"), "a", "nope"), withDeps(ev("c"), "a"))
	checkAck(t, mustAppend(t, st, "s", b), b, 2, rejected(sharevat.ReasonMissingDependency), applied(2))
	checkLog(t, st, "s", "a", "c")
}

func testDependencyInBatch(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	b := batch(1,
		ev("a"),
		withDeps(ev("b"), "a"), // satisfied by the op before it
		withDeps(ev("c"), "d"), // d comes later: not yet in the log
		ev("d"),                //
		sharevat.Op{OpID: "x", Kind: "bogus", Body: []byte(`{}`)}, // rejected
		withDeps(ev("y"), "x"), // depends on a rejected op
	)
	missing := rejected(sharevat.ReasonMissingDependency)
	checkAck(t, mustAppend(t, st, "s", b), b, 3,
		applied(1), applied(2), missing, applied(3), rejected(sharevat.ReasonInvalid), missing)
	checkLog(t, st, "s", "a", "b", "d")
}

func testExpectedCursor(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	b1 := batch(1, expect(ev("a"), 0))
	checkAck(t, mustAppend(t, st, "s", b1), b1, 1, applied(1))
	b2 := batch(1, expect(ev("b"), 1), expect(ev("c"), 2), expect(ev("d"), 2), expect(ev("e"), 0))
	conflict := rejected(sharevat.ReasonConflict)
	checkAck(t, mustAppend(t, st, "s", b2), b2, 3, applied(2), applied(3), conflict, conflict)
	b3 := batch(1, expect(ev("f"), 9))
	checkAck(t, mustAppend(t, st, "s", b3), b3, 3, conflict)
	checkLog(t, st, "s", "a", "b", "c")
}

func testRejectedTakeNoCursor(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	b := batch(1, ev("a"), put("bad", sharevat.KindMessage, "", `{}`), ev("b"), withDeps(ev("c"), "zz"), ev("d"))
	checkAck(t, mustAppend(t, st, "s", b), b, 3, applied(1), rejected(sharevat.ReasonInvalid),
		applied(2), rejected(sharevat.ReasonMissingDependency), applied(3))
	checkLog(t, st, "s", "a", "b", "d")
}

func testRejectedIDNotIndexed(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	b1 := batch(1, withDeps(ev("b"), "a"))
	checkAck(t, mustAppend(t, st, "s", b1), b1, 0, rejected(sharevat.ReasonMissingDependency))
	b2 := batch(1, ev("a"), withDeps(ev("b"), "a"))
	checkAck(t, mustAppend(t, st, "s", b2), b2, 2, applied(1), applied(2))
	checkLog(t, st, "s", "a", "b")
}

func testInvalid(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	long := make([]byte, sharevat.DefaultLimits().MaxOpIDLen+1)
	for i := range long {
		long[i] = 'x'
	}
	for name, op := range map[string]sharevat.Op{
		"unknown kind":      {OpID: "o", Kind: "bogus", Body: []byte(`{}`)},
		"empty kind":        {OpID: "o", Body: []byte(`{}`)},
		"body not JSON":     put("o", sharevat.KindMessage, "k", `{"text":`),
		"event body empty":  {OpID: "o", Kind: sharevat.KindEvent},
		"state without key": put("o", sharevat.KindPart, "", `{}`),
		"event with key":    put("o", sharevat.KindEvent, "k", `{}`),
		"event delete":      {OpID: "o", Kind: sharevat.KindEvent, Delete: true},
		"empty op id":       ev(""),
		"op id too long":    ev(string(long)),
		"op id not UTF-8":   ev("\xff\xfe"),
		"key not UTF-8":     put("o", sharevat.KindMessage, "\xff", `{}`),
	} {
		b := batch(1, op)
		ack := mustAppend(t, st, "s", b)
		t.Run(name, func(t *testing.T) { checkAck(t, ack, b, 0, rejected(sharevat.ReasonInvalid)) })
	}
	b := batch(1, del("o", sharevat.KindMessage, "k")) // a tombstone needs no body
	checkAck(t, mustAppend(t, st, "s", b), b, 1, applied(1))
	checkLog(t, st, "s", "o")
}
