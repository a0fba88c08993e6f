package storetest

import (
	"testing"

	"github.com/sharevat/sharevat"
)

var deleteTests = []test{
	{"Marks", testDeleteMarks},
	{"RevokesGrants", testDeleteRevokesGrants},
	{"NotFoundAfter", testDeleteNotFoundAfter},
	{"IDNeverReused", testDeleteIDNeverReused},
	{"ChildrenLiveOn", testDeleteChildrenLiveOn},
	{"Errors", testDeleteErrors},
}

func testDeleteMarks(t *testing.T, st sharevat.Store) {
	want := mustShare(t, st, "s")
	mustShare(t, st, "other")
	appendEvents(t, st, "s", 3)
	before, err := st.Share(t.Context(), "s")
	ok(t, err)
	ok(t, st.Delete(t.Context(), "s", at(300)))
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	want.Deleted, want.DeletedAt, want.Head, want.Meta.UpdatedAt = true, at(300), 3, before.Meta.UpdatedAt
	sameValue(t, "deleted share", got, want)
	all, err := st.Shares(t.Context())
	ok(t, err)
	if len(all) != 2 || all[1].ID != "s" || !all[1].Deleted {
		t.Fatalf("Shares after delete = %+v, want other and s (deleted)", all)
	}
	sameValue(t, "deleted share in Shares", all[1], got)
}

func testDeleteRevokesGrants(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustShare(t, st, "t")
	early := child("s", "early", 10)
	ok(t, st.CreateGrant(t.Context(), early))
	ok(t, st.CreateGrant(t.Context(), child("s", "live", 11)))
	ok(t, st.CreateGrant(t.Context(), child("t", "other", 12)))
	ok(t, st.RevokeGrants(t.Context(), []sharevat.GrantID{"early"}, at(50)))
	ok(t, st.Delete(t.Context(), "s", at(300)))
	gs, err := st.Grants(t.Context(), "s")
	ok(t, err)
	if len(gs) != 3 {
		t.Fatalf("grants of the deleted share = %d, want 3 (they stay, revoked)", len(gs))
	}
	for _, g := range gs {
		want := at(300)
		if g.ID == "early" {
			want = at(50) // the first revocation stays
		}
		if !g.Revoked || !g.RevokedAt.Equal(want) {
			t.Errorf("grant %s: revoked %v at %v; want revoked at %v", g.ID, g.Revoked, g.RevokedAt, want)
		}
	}
	g, err := st.Grant(t.Context(), "other")
	ok(t, err)
	if g.Revoked {
		t.Error("a grant of another share was revoked")
	}
}

// testDeleteNotFoundAfter: every method but Share, Shares and the grant
// and audit reads treats a deleted share as not found.
func testDeleteNotFoundAfter(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	appendEvents(t, st, "s", 3)
	ok(t, st.Audit(t.Context(), rec("s", 1)))
	ok(t, st.Delete(t.Context(), "s", at(300)))
	ctx, title := t.Context(), "x"
	calls := map[string]func() error{
		"Append":   func() error { _, err := tryAppend(t, st, "s", batch(1, ev("a")), sharevat.DefaultLimits()); return err },
		"Read":     func() error { _, _, err := st.Read(ctx, "s", 0, 10); return err },
		"Snapshot": func() error { _, _, err := st.Snapshot(ctx, "s"); return err },
		"UpdateMeta": func() error {
			_, err := st.UpdateMeta(ctx, "s", sharevat.MetaPatch{Title: &title}, at(301))
			return err
		},
		"BumpEpoch":   func() error { _, err := st.BumpEpoch(ctx, "s", ownerGrant("s", "s-owner-2", 2)); return err },
		"CreateGrant": func() error { return st.CreateGrant(ctx, child("s", "g", 301)) },
		"Settings":    func() error { _, err := st.Settings(ctx, "s"); return err },
		"PutSettings": func() error { _, err := st.PutSettings(ctx, "s", sharevat.Settings{}); return err },
		"Compact":     func() error { _, err := st.Compact(ctx, "s", 2); return err },
		"Children":    func() error { _, err := st.Children(ctx, "s"); return err },
		"Delete":      func() error { return st.Delete(ctx, "s", at(301)) },
		"Fork": func() error {
			s, owner := forkShare("c")
			_, err := st.Fork(ctx, "s", 0, s, owner)
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) { wantCode(t, call(), sharevat.ENotFound) })
	}
	recs := auditLog(t, st, "s", 0, 10)
	if len(recs) != 1 {
		t.Errorf("audit records of the deleted share = %d, want 1 (they stay)", len(recs))
	}
}

func testDeleteIDNeverReused(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	ok(t, st.Delete(t.Context(), "s", at(300)))
	s, owner := newShare("s")
	owner.ID = "s-owner-new"
	wantCode(t, st.CreateShare(t.Context(), s, owner), sharevat.EConflict)
	_, err := st.Grant(t.Context(), "s-owner-new")
	wantCode(t, err, sharevat.ENotFound)
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	if !got.Deleted {
		t.Error("a create over a deleted share brought it back")
	}
}

func testDeleteChildrenLiveOn(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "p")
	entries := workload(t, st, "p")
	mustFork(t, st, "p", "c", 10)
	ok(t, st.Delete(t.Context(), "p", at(300)))
	checkEntries(t, st, "c", 0, entries[:10])
	checkState(t, st, "c", stateAt(entries, 10), 10)
	c, err := st.Share(t.Context(), "c")
	ok(t, err)
	if c.ParentID != "p" || c.ForkCursor != 10 || c.Deleted {
		t.Errorf("fork after its parent's delete: parent %q at %d, deleted %v; want p at 10, live", c.ParentID, c.ForkCursor, c.Deleted)
	}
	b := batch(1, opOf(entries[0]), ev("new"))
	checkAck(t, mustAppend(t, st, "c", b), b, 11, dup(1), applied(11))
}

func testDeleteErrors(t *testing.T, st sharevat.Store) {
	wantCode(t, st.Delete(t.Context(), "nope", at(300)), sharevat.ENotFound)
	mustShare(t, st, "s")
	ok(t, st.Delete(t.Context(), "s", at(300)))
	wantCode(t, st.Delete(t.Context(), "s", at(301)), sharevat.ENotFound)
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	if !got.DeletedAt.Equal(at(300)) {
		t.Errorf("DeletedAt after a second delete = %v, want the first, %v", got.DeletedAt, at(300))
	}
}
