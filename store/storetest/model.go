package storetest

import (
	"cmp"
	"fmt"
	"slices"
	"testing"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// appendAt appends b to share at time now with the default limits.
func appendAt(t *testing.T, st sharevat.Store, share string, b *sharevat.Batch, now int) sharevat.Ack {
	t.Helper()
	ack, err := st.Append(t.Context(), sharevat.AppendRequest{
		Share: sharevat.ShareID(share), Batch: b, Limits: sharevat.DefaultLimits(), Now: at(now),
	})
	if err != nil {
		t.Fatalf("Append(%s): %v", share, err)
	}
	return ack
}

// workload appends to share, in batches at times 101, 102, …, a session
// whose entities are created, overwritten and deleted (and some
// re-created), with events between, and versions that arrive after a
// newer one (w5, w18: the state keeps the newer, apply.Supersedes): every cursor changes the state or
// the log in a way a wrong fork or compaction would show. It returns the
// whole log as read back.
func workload(t *testing.T, st sharevat.Store, share string) []sharevat.Entry {
	t.Helper()
	batches := [][]sharevat.Op{
		{put("w1", sharevat.KindSession, "ses", `{"title":"one"}`), put("w2", sharevat.KindMessage, "m1", `{"v":1,"time":{"created":10}}`), ev("w3")},
		{put("w4", sharevat.KindPart, "p1", `{"text":"ab","time":{"start":5}}`), put("w5", sharevat.KindPart, "p1", `{"text":"a","time":{"start":5}}`), put("w6", sharevat.KindMessage, "m2", `{"v":1}`)},
		{del("w7", sharevat.KindPart, "p1"), put("w8", sharevat.KindMessage, "m1", `{"v":2,"time":{"created":10,"completed":30}}`), ev("w9")},
		{put("w10", sharevat.KindPart, "p1", `{"text":"again"}`), put("w11", sharevat.KindModel, "gpt", `{}`), del("w12", sharevat.KindMessage, "m2")},
		{put("w13", sharevat.KindSession, "ses", `{"title":"two"}`), ev("w14"), put("w15", sharevat.KindSessionDiff, "ses", `[]`)},
		{put("w16", sharevat.KindMessage, "m3", `{"v":1}`), del("w17", sharevat.KindModel, "gpt"), put("w18", sharevat.KindMessage, "m1", `{"v":3,"time":{"created":10,"completed":20}}`)},
	}
	for i, ops := range batches {
		b := batch(1, ops...)
		b.BatchID = fmt.Sprintf("wb%d", i)
		appendAt(t, st, share, b, 101+i)
	}
	entries, _ := readAll(t, st, share)
	if len(entries) != 18 {
		t.Fatalf("workload wrote %d entries, want 18", len(entries))
	}
	return entries
}

// stateAt is the materialized state the entries with cursor ≤ c give
// by the version rule,
// ordered by (kind, key): the model every store's state must match.
func stateAt(entries []sharevat.Entry, c sharevat.Cursor) []sharevat.Entity {
	type ek struct{ kind, key string }
	m := map[ek]sharevat.Entity{}
	for _, e := range entries {
		if e.Cursor > c || !sharevat.IsStateKind(e.Kind) {
			continue
		}
		if e.Delete {
			delete(m, ek{e.Kind, e.Key})
			continue
		}
		if old, ok := m[ek{e.Kind, e.Key}]; ok && !apply.Supersedes(e.Body, old.Body) {
			continue
		}
		m[ek{e.Kind, e.Key}] = sharevat.Entity{Kind: e.Kind, Key: e.Key, Body: e.Body, Cursor: e.Cursor, At: e.At}
	}
	out := make([]sharevat.Entity, 0, len(m))
	for _, e := range m {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b sharevat.Entity) int { return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Key, b.Key)) })
	return out
}

// checkState fails t unless share's snapshot is want at head.
func checkState(t *testing.T, st sharevat.Store, share string, want []sharevat.Entity, head sharevat.Cursor) {
	t.Helper()
	got, h, err := st.Snapshot(t.Context(), sharevat.ShareID(share))
	ok(t, err)
	if h != head {
		t.Errorf("snapshot of %s at head %d, want %d", share, h, head)
	}
	if len(want) == 0 {
		want = nil
	}
	sameValue(t, "snapshot of "+share, got, want)
}

// checkEntries fails t unless share's readable log is exactly want (as
// read back, digests included), from cursor after+1.
func checkEntries(t *testing.T, st sharevat.Store, share string, after sharevat.Cursor, want []sharevat.Entry) {
	t.Helper()
	var got []sharevat.Entry
	for {
		page, _, err := st.Read(t.Context(), sharevat.ShareID(share), after, 7)
		ok(t, err)
		if len(page) == 0 {
			break
		}
		got = append(got, page...)
		after = page[len(page)-1].Cursor
	}
	if len(want) == 0 {
		want = nil
	}
	sameValue(t, "log of "+share, got, want)
}

// forkShare returns a new share id with its owner grant, for Fork.
func forkShare(id string) (sharevat.Share, sharevat.Grant) {
	s, owner := newShare(id)
	s.Meta.Title, s.Meta.CreatedAt, s.Meta.UpdatedAt = "fork "+id, at(200), at(200)
	return s, owner
}

// mustFork forks parent at c into child and returns the new share.
func mustFork(t *testing.T, st sharevat.Store, parent, child string, c sharevat.Cursor) sharevat.Share {
	t.Helper()
	s, owner := forkShare(child)
	got, err := st.Fork(t.Context(), sharevat.ShareID(parent), c, s, owner)
	if err != nil {
		t.Fatalf("Fork(%s at %d → %s): %v", parent, c, child, err)
	}
	return got
}

// opOf is the op that e was appended as (its content and op id), to
// append again.
func opOf(e sharevat.Entry) sharevat.Op {
	return sharevat.Op{OpID: e.OpID, Kind: e.Kind, Key: e.Key, Body: e.Body, Delete: e.Delete}
}
