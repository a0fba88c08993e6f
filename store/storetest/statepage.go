package storetest

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/sharevat/sharevat"
)

var statePageTests = []test{
	{"WholeWalkIsSnapshot", testStatePageWholeWalk},
	{"OneEntityOverBytes", testStatePageOverBytes},
	{"AppendsBetweenPages", testStatePageAppendsBetween},
	{"Empty", testStatePageEmpty},
	{"Errors", testStatePageErrors},
}

// fillState appends n ops over n/2 keys of two kinds: rewrites (with a
// growing stamp, so each is the newest version), deletes and events.
func fillState(t *testing.T, st sharevat.Store, share string, n int, prefix string) {
	t.Helper()
	var ops []sharevat.Op
	for i := range n {
		id := fmt.Sprintf("%s%d", prefix, i)
		key := fmt.Sprintf("k%03d", i%(n/2))
		switch kind := []string{sharevat.KindMessage, sharevat.KindPart}[i%2]; {
		case i%11 == 10:
			ops = append(ops, del(id, kind, key))
		case i%7 == 6:
			ops = append(ops, ev(id))
		default:
			ops = append(ops, put(id, kind, key, fmt.Sprintf(`{"time":{"updated":%d},"n":"%s"}`, 1000+i, id)))
		}
		if len(ops) == 16 || i == n-1 {
			mustAppend(t, st, share, batch(1, ops...))
			ops = nil
		}
	}
}

// walk pages through the state in order, calling between after each page.
func walk(t *testing.T, st sharevat.Store, share string, req sharevat.StatePageRequest, between func()) []sharevat.Entity {
	t.Helper()
	var out []sharevat.Entity
	for range 10_000 {
		p, err := st.StatePage(t.Context(), sharevat.ShareID(share), req)
		ok(t, err)
		out = append(out, p.Entities...)
		if p.Done {
			return out
		}
		if len(p.Entities) == 0 {
			t.Fatalf("a page that is not done holds no entity (after %+v)", req.After)
		}
		req.After = p.Next
		between()
	}
	t.Fatal("the walk never ended")
	return nil
}

// byChange sorts ents newest change first.
func byChange(ents []sharevat.Entity) []sharevat.Entity {
	out := slices.Clone(ents)
	slices.SortFunc(out, func(a, b sharevat.Entity) int { return cmp.Compare(b.Cursor, a.Cursor) })
	return out
}

// testStatePageWholeWalk: invariant — walking every page, in either order
// and with any bound, yields exactly the snapshot's entities, in that
// order's sequence.
func testStatePageWholeWalk(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	fillState(t, st, "s", 120, "a")
	snap, head, err := st.Snapshot(t.Context(), "s")
	ok(t, err)
	for _, req := range []sharevat.StatePageRequest{
		{Order: sharevat.ByKey, MaxCount: 7},
		{Order: sharevat.ByKey, MaxBytes: 300},
		{Order: sharevat.ByKey},
		{Order: sharevat.ByChange, MaxCount: 7},
		{Order: sharevat.ByChange, MaxBytes: 300},
		{Order: sharevat.ByChange},
	} {
		want := snap
		if req.Order == sharevat.ByChange {
			want = byChange(snap)
		}
		sameValue(t, fmt.Sprintf("walk %+v", req), walk(t, st, "s", req, func() {}), want)
		p, err := st.StatePage(t.Context(), "s", req)
		ok(t, err)
		if p.Head != head {
			t.Errorf("page head = %d, want %d", p.Head, head)
		}
		count, bytes := req.Bounds()
		size := 0
		for i := range p.Entities {
			size += sharevat.EntitySize(&p.Entities[i])
		}
		if len(p.Entities) > count || size > bytes {
			t.Errorf("page %+v holds %d entities of %d bytes, over its bounds", req, len(p.Entities), size)
		}
	}
}

// testStatePageOverBytes: a page holds at least one entity, however small
// its byte bound, so a walk always progresses.
func testStatePageOverBytes(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	fillState(t, st, "s", 20, "a")
	snap, _, err := st.Snapshot(t.Context(), "s")
	ok(t, err)
	for _, order := range []sharevat.StateOrder{sharevat.ByKey, sharevat.ByChange} {
		p, err := st.StatePage(t.Context(), "s", sharevat.StatePageRequest{Order: order, MaxBytes: 1})
		ok(t, err)
		if len(p.Entities) != 1 || p.Done != (len(snap) == 1) {
			t.Errorf("order %d, 1-byte page: %d entities, done %v; want 1, not done", order, len(p.Entities), p.Done)
		}
	}
}

// testStatePageAppendsBetween: invariant — with ops appended between
// pages, a ByKey walk meets no key twice and every key that exists
// throughout; a ByChange walk meets no key twice and every entity not
// changed since its first page.
func testStatePageAppendsBetween(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	fillState(t, st, "s", 100, "a")
	for _, order := range []sharevat.StateOrder{sharevat.ByKey, sharevat.ByChange} {
		before, _, err := st.Snapshot(t.Context(), "s")
		ok(t, err)
		n := 0
		got := walk(t, st, "s", sharevat.StatePageRequest{Order: order, MaxCount: 5}, func() {
			n++
			p := fmt.Sprintf("o%d-%d-", order, n)
			mustAppend(t, st, "s", batch(1,
				put(p+"1", sharevat.KindMessage, fmt.Sprintf("k%03d", n*3), fmt.Sprintf(`{"time":{"updated":%d}}`, 5000+n)),
				put(p+"2", sharevat.KindSession, fmt.Sprintf("new%d", n), `{}`)))
		})
		seen := map[string]sharevat.Cursor{}
		for _, e := range got {
			k := e.Kind + "/" + e.Key
			if _, dup := seen[k]; dup {
				t.Errorf("order %d: %s met twice", order, k)
			}
			seen[k] = e.Cursor
		}
		after, _, err := st.Snapshot(t.Context(), "s")
		ok(t, err)
		now := map[string]sharevat.Cursor{}
		for _, e := range after {
			now[e.Kind+"/"+e.Key] = e.Cursor
		}
		for _, e := range before {
			k := e.Kind + "/" + e.Key
			_, met := seen[k]
			stayed := now[k] == e.Cursor
			if !met && (order == sharevat.ByKey || stayed) {
				t.Errorf("order %d: %s (cursor %d, now %d) never met", order, k, e.Cursor, now[k])
			}
		}
	}
}

func testStatePageEmpty(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	appendEvents(t, st, "s", 2)
	for _, order := range []sharevat.StateOrder{sharevat.ByKey, sharevat.ByChange} {
		p, err := st.StatePage(t.Context(), "s", sharevat.StatePageRequest{Order: order})
		ok(t, err)
		if len(p.Entities) != 0 || !p.Done || p.Head != 2 {
			t.Errorf("order %d on a state-less share: %+v, want no entity, done, head 2", order, p)
		}
	}
}

func testStatePageErrors(t *testing.T, st sharevat.Store) {
	_, err := st.StatePage(t.Context(), "nope", sharevat.StatePageRequest{})
	wantCode(t, err, sharevat.ENotFound)
	mustShare(t, st, "s")
	_, err = st.StatePage(t.Context(), "s", sharevat.StatePageRequest{Order: 9})
	wantCode(t, err, sharevat.EInvalid)
}

// RunStatePage runs only the StatePage group of the suite: for a backend
// to run it again under options that change how state is read (the bolt
// store's write-ahead log tail).
func RunStatePage(t *testing.T, open func(t *testing.T) sharevat.Store) {
	for _, tc := range statePageTests {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}
