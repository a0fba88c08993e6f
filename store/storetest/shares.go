package storetest

import (
	"strings"
	"testing"

	"github.com/sharevat/sharevat"
)

var shareTests = []test{
	{"CreateAndGet", testCreateShare},
	{"CreateConflict", testCreateShareConflict},
	{"CreateOwnerGrantExists", testCreateShareOwnerExists},
	{"CreateInvalid", testCreateShareInvalid},
	{"CreateIgnoresLifecycle", testCreateShareIgnoresLifecycle},
	{"NotFound", testShareNotFound},
	{"ListOrdered", testSharesOrdered},
	{"ListHeads", testSharesHeads},
	{"UpdateMeta", testUpdateMeta},
	{"UpdateMetaErrors", testUpdateMetaErrors},
}

var epochTests = []test{
	{"Bump", testBumpEpoch},
	{"BumpConflict", testBumpEpochConflict},
	{"BumpNotFound", testBumpEpochNotFound},
	{"BumpInvalid", testBumpEpochInvalid},
	{"BumpFencesAppends", testBumpEpochFencesAppends},
}

func testCreateShare(t *testing.T, st sharevat.Store) {
	s, owner := newShare("s")
	s.Head = 42 // ignored: a new log is empty
	ok(t, st.CreateShare(t.Context(), s, owner))
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	s.Head = 0
	sameValue(t, "share", got, s)
	g, err := st.Grant(t.Context(), owner.ID)
	ok(t, err)
	sameValue(t, "owner grant", g, owner)
	gs, err := st.Grants(t.Context(), "s")
	ok(t, err)
	sameValue(t, "grants", gs, []sharevat.Grant{owner})
}

func testCreateShareConflict(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	s, owner := newShare("s")
	s.Meta.Title, owner.ID = "other", "other-owner"
	wantCode(t, st.CreateShare(t.Context(), s, owner), sharevat.EConflict)
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	if got.Meta.Title != "title s" {
		t.Errorf("title after a conflicting create = %q, want %q", got.Meta.Title, "title s")
	}
	_, err = st.Grant(t.Context(), "other-owner")
	wantCode(t, err, sharevat.ENotFound)
}

func testCreateShareOwnerExists(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "a")
	s, owner := newShare("b")
	owner.ID = "a-owner"
	wantCode(t, st.CreateShare(t.Context(), s, owner), sharevat.EConflict)
	_, err := st.Share(t.Context(), "b")
	wantCode(t, err, sharevat.ENotFound)
	g, err := st.Grant(t.Context(), "a-owner")
	ok(t, err)
	if g.ShareID != "a" {
		t.Errorf("grant a-owner now belongs to %q, want a", g.ShareID)
	}
}

func testCreateShareInvalid(t *testing.T, st sharevat.Store) {
	for name, mutate := range map[string]func(*sharevat.Share, *sharevat.Grant){
		"owner of another share": func(s *sharevat.Share, g *sharevat.Grant) { g.ShareID = "x" },
		"owner is an admin":      func(s *sharevat.Share, g *sharevat.Grant) { g.ShareID = "" },
		"owner at another epoch": func(s *sharevat.Share, g *sharevat.Grant) { g.Epoch = 2 },
		"empty share id":         func(s *sharevat.Share, g *sharevat.Grant) { s.ID, g.ShareID = "", "" },
		"empty grant id":         func(s *sharevat.Share, g *sharevat.Grant) { g.ID = "" },
	} {
		t.Run(name, func(t *testing.T) {
			s, owner := newShare("s")
			mutate(&s, &owner)
			wantCode(t, st.CreateShare(t.Context(), s, owner), sharevat.EInvalid)
			_, err := st.Share(t.Context(), "s")
			wantCode(t, err, sharevat.ENotFound)
			_, err = st.Grant(t.Context(), owner.ID)
			wantCode(t, err, sharevat.ENotFound)
		})
	}
}

func testShareNotFound(t *testing.T, st sharevat.Store) {
	_, err := st.Share(t.Context(), "nope")
	wantCode(t, err, sharevat.ENotFound)
}

func testSharesOrdered(t *testing.T, st sharevat.Store) {
	got, err := st.Shares(t.Context())
	ok(t, err)
	if len(got) != 0 {
		t.Fatalf("Shares of an empty store = %d shares, want none", len(got))
	}
	var want []sharevat.Share
	for _, id := range []string{"c", "a", "b"} {
		mustShare(t, st, id)
	}
	for _, id := range []string{"a", "b", "c"} {
		s, _ := newShare(id)
		want = append(want, s)
	}
	got, err = st.Shares(t.Context())
	ok(t, err)
	sameValue(t, "shares", got, want)
}

// testSharesHeads checks that Shares gives each share the head of its
// log, as Share does: a share with appended ops lists at its true head.
func testSharesHeads(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "a")
	mustShare(t, st, "b")
	mustShare(t, st, "c")
	mustAppend(t, st, "a", batch(1, ev("a1"), ev("a2"), ev("a3")))
	mustAppend(t, st, "c", batch(1, ev("c1")))
	mustAppend(t, st, "c", batch(1, ev("c2")))
	got, err := st.Shares(t.Context())
	ok(t, err)
	heads := map[sharevat.ShareID]sharevat.Cursor{}
	for _, s := range got {
		heads[s.ID] = s.Head
		one, err := st.Share(t.Context(), s.ID)
		ok(t, err)
		sameValue(t, "listed share "+string(s.ID), s, one)
	}
	sameValue(t, "listed heads", heads, map[sharevat.ShareID]sharevat.Cursor{"a": 3, "b": 0, "c": 2})
}

func testUpdateMeta(t *testing.T, st sharevat.Store) {
	want := mustShare(t, st, "s")
	title := "new title"
	got, err := st.UpdateMeta(t.Context(), "s", sharevat.MetaPatch{Title: &title, Status: sharevat.StatusBusy}, at(50))
	ok(t, err)
	want.Meta.Title, want.Meta.Status, want.Meta.UpdatedAt = title, sharevat.StatusBusy, at(50)
	want.Meta.StatusAt = at(50) // the status changed
	sameValue(t, "updated share", got, want)
	stored, err := st.Share(t.Context(), "s")
	ok(t, err)
	sameValue(t, "stored share", stored, want)
	title = "again"
	got, err = st.UpdateMeta(t.Context(), "s", sharevat.MetaPatch{Title: &title, Status: sharevat.StatusBusy}, at(60))
	ok(t, err)
	want.Meta.Title, want.Meta.UpdatedAt = title, at(60) // the same status: StatusAt stays
	sameValue(t, "share updated with the same status", got, want)
}

func testUpdateMetaErrors(t *testing.T, st sharevat.Store) {
	want := mustShare(t, st, "s")
	long := strings.Repeat("x", sharevat.MaxMetaField+1)
	title := "t"
	for _, tc := range []struct {
		id    sharevat.ShareID
		patch sharevat.MetaPatch
		code  sharevat.Code
	}{
		{"nope", sharevat.MetaPatch{Title: &title}, sharevat.ENotFound},
		{"s", sharevat.MetaPatch{Title: &title, Directory: &long}, sharevat.ETooLarge},
		{"s", sharevat.MetaPatch{Title: &title, Status: sharevat.Status(9)}, sharevat.EInvalid},
	} {
		_, err := st.UpdateMeta(t.Context(), tc.id, tc.patch, at(50))
		wantCode(t, err, tc.code)
	}
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	sameValue(t, "share after failed updates", got, want)
}

func testBumpEpoch(t *testing.T, st sharevat.Store) {
	want := mustShare(t, st, "s")
	owner := ownerGrant("s", "s-owner-2", 2)
	got, err := st.BumpEpoch(t.Context(), "s", owner)
	ok(t, err)
	want.Epoch, want.OwnerRoot = 2, owner.ID
	sameValue(t, "bumped share", got, want)
	stored, err := st.Share(t.Context(), "s")
	ok(t, err)
	sameValue(t, "stored share", stored, want)
	g, err := st.Grant(t.Context(), owner.ID)
	ok(t, err)
	sameValue(t, "new owner grant", g, owner)
	_, first := newShare("s")
	gs, err := st.Grants(t.Context(), "s")
	ok(t, err)
	sameValue(t, "grants after bump", gs, []sharevat.Grant{first, owner})
}

func testBumpEpochConflict(t *testing.T, st sharevat.Store) {
	want := mustShare(t, st, "s")
	for _, epoch := range []sharevat.Epoch{0, 1, 3} {
		_, err := st.BumpEpoch(t.Context(), "s", ownerGrant("s", "s-owner-x", epoch))
		wantCode(t, err, sharevat.EConflict)
	}
	_, err := st.BumpEpoch(t.Context(), "s", ownerGrant("s", "s-owner", 2)) // id exists
	wantCode(t, err, sharevat.EConflict)
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	sameValue(t, "share after failed bumps", got, want)
	_, err = st.Grant(t.Context(), "s-owner-x")
	wantCode(t, err, sharevat.ENotFound)
}

func testBumpEpochNotFound(t *testing.T, st sharevat.Store) {
	_, err := st.BumpEpoch(t.Context(), "nope", ownerGrant("nope", "g", 2))
	wantCode(t, err, sharevat.ENotFound)
	_, err = st.Grant(t.Context(), "g")
	wantCode(t, err, sharevat.ENotFound)
}

func testBumpEpochInvalid(t *testing.T, st sharevat.Store) {
	want := mustShare(t, st, "s")
	mustShare(t, st, "t")
	for _, g := range []sharevat.Grant{ownerGrant("t", "g", 2), ownerGrant("", "g", 2), ownerGrant("s", "", 2)} {
		_, err := st.BumpEpoch(t.Context(), "s", g)
		wantCode(t, err, sharevat.EInvalid)
	}
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	sameValue(t, "share after invalid bumps", got, want)
}

func testBumpEpochFencesAppends(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustAppend(t, st, "s", batch(1, ev("a")))
	_, err := st.BumpEpoch(t.Context(), "s", ownerGrant("s", "s-owner-2", 2))
	ok(t, err)
	b := batch(1, ev("b"), ev("a"))
	checkAck(t, mustAppend(t, st, "s", b), b, 1, rejected(sharevat.ReasonStaleEpoch), dup(1))
	b = batch(2, ev("b"))
	checkAck(t, mustAppend(t, st, "s", b), b, 2, applied(2))
	checkLog(t, st, "s", "a", "b")
}

// testCreateShareIgnoresLifecycle: a new share is live, unforked and
// uncompacted whatever the caller put in those fields; its meta and
// settings are stored as given.
func testCreateShareIgnoresLifecycle(t *testing.T, st sharevat.Store) {
	s, owner := newShare("s")
	want := s
	s.Deleted, s.DeletedAt, s.ParentID, s.ForkCursor, s.Earliest = true, at(9), "p", 7, 5
	s.Meta.StatusAt = at(3)
	s.Settings = sharevat.Settings{Privacy: sharevat.PrivacyOff, RetainOps: 9}
	want.Meta.StatusAt, want.Settings = s.Meta.StatusAt, s.Settings
	ok(t, st.CreateShare(t.Context(), s, owner))
	got, err := st.Share(t.Context(), "s")
	ok(t, err)
	sameValue(t, "created share", got, want)
}
