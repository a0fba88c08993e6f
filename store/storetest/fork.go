package storetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sharevat/sharevat"
)

var forkTests = []test{
	{"AtZero", testForkAtZero},
	{"AtHead", testForkAtHead},
	{"AtEveryCursor", testForkAtEveryCursor},
	{"BeyondHead", testForkBeyondHead},
	{"Errors", testForkErrors},
	{"Independent", testForkIndependent},
	{"OfFork", testForkOfFork},
	{"Compacted", testForkCompacted},
}

var childrenTests = []test{
	{"OldestFirst", testChildrenOldestFirst},
	{"Errors", testChildrenErrors},
}

func testForkAtZero(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	workload(t, st, "p")
	s, owner := forkShare("c")
	got, err := st.Fork(t.Context(), "p", 0, s, owner)
	ok(t, err)
	s.ParentID, s.ForkCursor, s.Earliest = "p", 0, 1
	sameValue(t, "forked share", got, s)
	stored, err := st.Share(t.Context(), "c")
	ok(t, err)
	sameValue(t, "stored fork", stored, s)
	g, err := st.Grant(t.Context(), owner.ID)
	ok(t, err)
	sameValue(t, "owner grant of the fork", g, owner)
	checkLog(t, st, "c")
	checkState(t, st, "c", nil, 0)
	b := batch(1, ev("w3"), ev("new")) // the parent's op ids are not the fork's
	checkAck(t, mustAppend(t, st, "c", b), b, 2, applied(1), applied(2))
}

func testForkAtHead(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	entries := workload(t, st, "p")
	head := sharevat.Cursor(len(entries))
	got := mustFork(t, st, "p", "c", head)
	if got.Head != head || got.ForkCursor != head || got.ParentID != "p" {
		t.Errorf("fork at head: head %d, fork cursor %d, parent %q; want %d, %d, p", got.Head, got.ForkCursor, got.ParentID, head, head)
	}
	checkEntries(t, st, "c", 0, entries)
	checkState(t, st, "c", stateAt(entries, head), head)
	b := batch(1, opOf(entries[4]), ev("new"))
	checkAck(t, mustAppend(t, st, "c", b), b, head+1, dup(5), applied(head+1))
}

// testForkAtEveryCursor forks at each cursor of the workload and checks
// the fork's log, state and op-id index against the parent's prefix.
func testForkAtEveryCursor(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	entries := workload(t, st, "p")
	for c := range sharevat.Cursor(len(entries) + 1) {
		id := fmt.Sprintf("c%d", c)
		mustFork(t, st, "p", id, c)
		checkEntries(t, st, id, 0, entries[:c])
		checkState(t, st, id, stateAt(entries, c), c)
		if c == 0 || int(c) == len(entries) {
			continue
		}
		b := batch(1, opOf(entries[c-1]), opOf(entries[c]))
		checkAck(t, mustAppend(t, st, id, b), b, c+1, dup(c), applied(c+1))
	}
}

func testForkBeyondHead(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	appendEvents(t, st, "p", 3)
	s, owner := forkShare("c")
	_, err := st.Fork(t.Context(), "p", 4, s, owner)
	wantCode(t, err, sharevat.EInvalid)
	_, err = st.Share(t.Context(), "c")
	wantCode(t, err, sharevat.ENotFound)
	_, err = st.Grant(t.Context(), owner.ID)
	wantCode(t, err, sharevat.ENotFound)
}

func testForkErrors(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	mustShare(t, st, "taken")
	mustShare(t, st, "gone")
	appendEvents(t, st, "p", 2)
	ok(t, st.Delete(t.Context(), "gone", at(300)))
	for _, tc := range []struct {
		name, parent, child string
		owner               func(*sharevat.Grant)
		code                sharevat.Code
	}{
		{"unknown parent", "nope", "c", nil, sharevat.ENotFound},
		{"deleted parent", "gone", "c", nil, sharevat.ENotFound},
		{"share id exists", "p", "taken", nil, sharevat.EConflict},
		{"share id of a deleted share", "p", "gone", nil, sharevat.EConflict},
		{"owner grant id exists", "p", "c", func(g *sharevat.Grant) { g.ID = "p-owner" }, sharevat.EConflict},
		{"owner of another share", "p", "c", func(g *sharevat.Grant) { g.ShareID = "p" }, sharevat.EInvalid},
		{"empty owner id", "p", "c", func(g *sharevat.Grant) { g.ID = "" }, sharevat.EInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, owner := forkShare(tc.child)
			if tc.owner != nil {
				tc.owner(&owner)
			}
			_, err := st.Fork(t.Context(), sharevat.ShareID(tc.parent), 1, s, owner)
			wantCode(t, err, tc.code)
		})
	}
	_, err := st.Share(t.Context(), "c")
	wantCode(t, err, sharevat.ENotFound)
	checkLog(t, st, "taken")
}

// testForkIndependent: after a fork, appends to either share leave the
// other alone.
func testForkIndependent(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	entries := workload(t, st, "p")
	mustFork(t, st, "p", "c", 9)
	appendAt(t, st, "p", batch(1, put("pp", sharevat.KindMessage, "m1", `{"parent":true}`)), 300)
	appendAt(t, st, "c", batch(1, put("cc", sharevat.KindMessage, "m1", `{"child":true}`)), 301)
	pe, _ := readAll(t, st, "p")
	ce, _ := readAll(t, st, "c")
	sameValue(t, "parent log after both appended", pe[:len(entries)], entries)
	sameValue(t, "fork log after both appended", ce[:9], entries[:9])
	if len(pe) != 19 || pe[18].OpID != "pp" || len(ce) != 10 || ce[9].OpID != "cc" {
		t.Fatalf("after the appends: parent has %d entries, fork %d; want 19 ending pp, 10 ending cc", len(pe), len(ce))
	}
	checkState(t, st, "p", stateAt(pe, 19), 19)
	checkState(t, st, "c", stateAt(ce, 10), 10)
}

func testForkOfFork(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	entries := workload(t, st, "p")
	mustFork(t, st, "p", "c", 12)
	mustFork(t, st, "c", "g", 7)
	checkEntries(t, st, "g", 0, entries[:7])
	checkState(t, st, "g", stateAt(entries, 7), 7)
	kids, err := st.Children(t.Context(), "p")
	ok(t, err)
	if len(kids) != 1 || kids[0].ID != "c" {
		t.Errorf("children of p = %v, want only c (not the grandchild)", ids(kids))
	}
}

// testForkCompacted: a compacted parent forks at earliest-1 or later,
// into a fork compacted alike whose state and op-id index cover every op
// up to the fork cursor; before that it answers compacted.
func testForkCompacted(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	entries := workload(t, st, "p")
	earliest, err := st.Compact(t.Context(), "p", 8)
	ok(t, err)
	if earliest != 8 {
		t.Fatalf("Compact(8) = %d, want 8", earliest)
	}
	s, owner := forkShare("early")
	_, err = st.Fork(t.Context(), "p", 6, s, owner)
	wantCode(t, err, sharevat.ECompacted)
	if msg := sharevat.ErrorMessage(err); !strings.Contains(msg, "cursor 8") || !strings.Contains(msg, "at cursor 7") {
		t.Errorf("compacted fork error %q does not name the earliest cursor 8 and the earliest fork cursor, 7", msg)
	}
	for _, c := range []sharevat.Cursor{7, 8, 12, 18} {
		id := fmt.Sprintf("c%d", c)
		got := mustFork(t, st, "p", id, c)
		if got.Earliest != 8 || got.Head != c {
			t.Errorf("fork at %d: earliest %d, head %d; want 8, %d", c, got.Earliest, got.Head, c)
		}
		checkEntries(t, st, id, 7, entries[7:c])
		checkState(t, st, id, stateAt(entries, c), c)
		_, _, err := st.Read(t.Context(), sharevat.ShareID(id), 0, 10)
		wantCode(t, err, sharevat.ECompacted)
		b := batch(1, opOf(entries[0]), opOf(entries[6]), ev("new"))
		checkAck(t, mustAppend(t, st, id, b), b, c+1, dup(1), dup(7), applied(c+1))
	}
}

func testChildrenOldestFirst(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	appendEvents(t, st, "p", 3)
	for i, id := range []string{"c3", "c1", "c2", "c0"} {
		s, owner := forkShare(id)
		s.Meta.CreatedAt = at(200 + i%3) // c3 and c0 at the same time: by id
		_, err := st.Fork(t.Context(), "p", sharevat.Cursor(i%4), s, owner)
		ok(t, err)
	}
	mustShare(t, st, "other")
	kids, err := st.Children(t.Context(), "p")
	ok(t, err)
	sameValue(t, "children", ids(kids), []sharevat.ShareID{"c0", "c3", "c1", "c2"})
	for _, k := range kids {
		one, err := st.Share(t.Context(), k.ID)
		ok(t, err)
		sameValue(t, "child "+string(k.ID), k, one)
	}
	ok(t, st.Delete(t.Context(), "c3", at(300)))
	kids, err = st.Children(t.Context(), "p")
	ok(t, err)
	sameValue(t, "children after deleting c3", ids(kids), []sharevat.ShareID{"c0", "c1", "c2"})
	kids, err = st.Children(t.Context(), "c1")
	ok(t, err)
	if len(kids) != 0 {
		t.Errorf("children of a fork without forks = %v, want none", ids(kids))
	}
}

func testChildrenErrors(t *testing.T, st sharevat.Store) {
	_, err := st.Children(t.Context(), "nope")
	wantCode(t, err, sharevat.ENotFound)
	mustShare(t, st, "p")
	mustFork(t, st, "p", "c", 0)
	ok(t, st.Delete(t.Context(), "p", at(300)))
	_, err = st.Children(t.Context(), "p")
	wantCode(t, err, sharevat.ENotFound)
	c, err := st.Share(t.Context(), "c")
	ok(t, err)
	if c.Deleted || c.ParentID != "p" {
		t.Errorf("fork of a deleted parent: deleted %v, parent %q; want live, parent p", c.Deleted, c.ParentID)
	}
}

// ids returns the ids of shares, in order.
func ids(shares []sharevat.Share) []sharevat.ShareID {
	out := []sharevat.ShareID{}
	for _, s := range shares {
		out = append(out, s.ID)
	}
	return out
}
