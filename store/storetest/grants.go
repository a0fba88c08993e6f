package storetest

import (
	"testing"
	"time"

	"github.com/sharevat/sharevat"
)

var grantTests = append([]test{
	{"CreateAndGet", testCreateGrant},
	{"CreateConflict", testCreateGrantConflict},
	{"CreateUnknownShare", testCreateGrantUnknownShare},
	{"CreateInvalid", testCreateGrantInvalid},
	{"NotFound", testGrantNotFound},
	{"Admin", testAdminGrants},
	{"ListOrdered", testGrantsOrdered},
	{"Revoke", testRevokeGrants},
	{"RevokeUnknown", testRevokeUnknown},
	{"Touch", testTouchGrants},
}, subtreeTests...)

// child returns a read+append grant of share s minted from s's owner.
func child(s, id string, created int) sharevat.Grant {
	return sharevat.Grant{
		ID: sharevat.GrantID(id), ShareID: sharevat.ShareID(s), Parent: sharevat.GrantID(s + "-owner"),
		Scope: sharevat.ScopeRead | sharevat.ScopeAppend, Epoch: 1, Verifier: []byte("v-" + id),
		Label: "label " + id, CreatedBy: "10.0.0.1:5000", CreatedAt: at(created),
	}
}

func testCreateGrant(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	g := child("s", "g", 10)
	g.ExpiresAt = at(3600)
	ok(t, st.CreateGrant(t.Context(), g))
	got, err := st.Grant(t.Context(), "g")
	ok(t, err)
	sameValue(t, "grant", got, g)
}

func testCreateGrantConflict(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	g := child("s", "g", 10)
	ok(t, st.CreateGrant(t.Context(), g))
	other := child("s", "g", 20)
	other.Label = "other"
	wantCode(t, st.CreateGrant(t.Context(), other), sharevat.EConflict)
	wantCode(t, st.CreateGrant(t.Context(), child("s", "s-owner", 20)), sharevat.EConflict)
	got, err := st.Grant(t.Context(), "g")
	ok(t, err)
	sameValue(t, "grant after a conflicting create", got, g)
}

func testCreateGrantUnknownShare(t *testing.T, st sharevat.Store) {
	wantCode(t, st.CreateGrant(t.Context(), child("nope", "g", 1)), sharevat.ENotFound)
	_, err := st.Grant(t.Context(), "g")
	wantCode(t, err, sharevat.ENotFound)
}

func testCreateGrantInvalid(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	wantCode(t, st.CreateGrant(t.Context(), child("s", "", 1)), sharevat.EInvalid)
}

func testGrantNotFound(t *testing.T, st sharevat.Store) {
	_, err := st.Grant(t.Context(), "nope")
	wantCode(t, err, sharevat.ENotFound)
}

func testAdminGrants(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	admin := sharevat.Grant{ID: "admin", Scope: sharevat.ScopeAdmin, Epoch: 1, Verifier: []byte("v"), CreatedAt: at(5)}
	ok(t, st.CreateGrant(t.Context(), admin))
	ok(t, st.CreateGrant(t.Context(), child("s", "g", 6)))
	got, err := st.Grants(t.Context(), "")
	ok(t, err)
	sameValue(t, "admin grants", got, []sharevat.Grant{admin})
	got, err = st.Grants(t.Context(), "s")
	ok(t, err)
	if len(got) != 2 {
		t.Errorf("share grants = %+v, want the owner and g", got)
	}
}

func testGrantsOrdered(t *testing.T, st sharevat.Store) {
	_, owner := newShare("s")
	mustShare(t, st, "s")
	mustShare(t, st, "t")
	mustShare(t, st, "s2") // a share id that extends "s"
	for _, g := range []sharevat.Grant{child("s", "g3", 30), child("s", "g1b", 10), child("s", "g2", 20), child("s", "g1a", 10), child("t", "x", 15), child("s2", "y", 15)} {
		ok(t, st.CreateGrant(t.Context(), g))
	}
	want := append([]sharevat.Grant{}, owner, child("s", "g1a", 10), child("s", "g1b", 10), child("s", "g2", 20), child("s", "g3", 30))
	got, err := st.Grants(t.Context(), "s")
	ok(t, err)
	sameValue(t, "grants of s", got, want)
	got, err = st.Grants(t.Context(), "unknown")
	ok(t, err)
	if len(got) != 0 {
		t.Errorf("grants of an unknown share = %+v, want none", got)
	}
}

func testRevokeGrants(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	for _, id := range []string{"g1", "g2", "g3"} {
		ok(t, st.CreateGrant(t.Context(), child("s", id, 1)))
	}
	ok(t, st.RevokeGrants(t.Context(), []sharevat.GrantID{"g1", "g2", "g1"}, at(50)))
	ok(t, st.RevokeGrants(t.Context(), []sharevat.GrantID{"g2", "g3"}, at(60)))
	ok(t, st.RevokeGrants(t.Context(), nil, at(70)))
	for id, when := range map[sharevat.GrantID]int{"g1": 50, "g2": 50, "g3": 60} {
		g, err := st.Grant(t.Context(), id)
		ok(t, err)
		if !g.Revoked || !g.RevokedAt.Equal(at(when)) {
			t.Errorf("grant %s: revoked %v at %v, want revoked at %v", id, g.Revoked, g.RevokedAt, at(when))
		}
	}
}

func testRevokeUnknown(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	ok(t, st.CreateGrant(t.Context(), child("s", "g1", 1)))
	err := st.RevokeGrants(t.Context(), []sharevat.GrantID{"g1", "nope"}, at(50))
	wantCode(t, err, sharevat.ENotFound)
	g, err := st.Grant(t.Context(), "g1")
	ok(t, err)
	sameValue(t, "grant after a failed revoke", g, child("s", "g1", 1))
}

func testTouchGrants(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	ok(t, st.CreateGrant(t.Context(), child("s", "g1", 1)))
	ok(t, st.CreateGrant(t.Context(), child("s", "g2", 1)))
	ok(t, st.TouchGrants(t.Context(), map[sharevat.GrantID]time.Time{"g1": at(50), "nope": at(50)}))
	ok(t, st.TouchGrants(t.Context(), nil))
	ok(t, st.TouchGrants(t.Context(), map[sharevat.GrantID]time.Time{"g1": at(40)})) // never moves back
	g, err := st.Grant(t.Context(), "g1")
	ok(t, err)
	want := child("s", "g1", 1)
	want.LastUsed = at(50)
	sameValue(t, "touched grant", g, want)
	g, err = st.Grant(t.Context(), "g2")
	ok(t, err)
	sameValue(t, "untouched grant", g, child("s", "g2", 1))
}
