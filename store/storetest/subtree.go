package storetest

import (
	"testing"

	"github.com/sharevat/sharevat"
)

// subtreeTests are in the Grant group (grantTests).
var subtreeTests = []test{
	{"Subtree", testSubtree},
	{"SubtreeKeepsRevoked", testSubtreeKeepsRevoked},
	{"SubtreeNotFound", testSubtreeNotFound},
	{"ChildQuota", testChildQuota},
	{"ChildQuotaExpired", testChildQuotaExpired},
	{"ChildUnlimited", testChildUnlimited},
	{"ChildErrors", testChildErrors},
}

// under returns grant id of share s minted from parent at created.
func under(s, parent, id string, created int) sharevat.Grant {
	g := child(s, id, created)
	g.Parent = sharevat.GrantID(parent)
	return g
}

// mustGrants creates each grant with CreateGrant.
func mustGrants(t *testing.T, st sharevat.Store, gs ...sharevat.Grant) {
	t.Helper()
	for _, g := range gs {
		ok(t, st.CreateGrant(t.Context(), g))
	}
}

// wantSubtree fails t unless Subtree(root) is want.
func wantSubtree(t *testing.T, st sharevat.Store, root string, want ...sharevat.Grant) {
	t.Helper()
	got, err := st.Subtree(t.Context(), sharevat.GrantID(root))
	ok(t, err)
	sameValue(t, "subtree of "+root, got, want)
}

// The tree: s-owner → a → {a2 → a21, a1}, s-owner → b; t-owner → x.
func testSubtree(t *testing.T, st sharevat.Store) {
	_, owner := newShare("s")
	mustShare(t, st, "s")
	mustShare(t, st, "t")
	a, a1, a2 := under("s", "s-owner", "a", 10), under("s", "a", "a1", 30), under("s", "a", "a2", 20)
	a21, b, x := under("s", "a2", "a21", 40), under("s", "s-owner", "b", 15), under("t", "t-owner", "x", 12)
	mustGrants(t, st, a, a1, a2, a21, b, x)
	wantSubtree(t, st, "a", a, a2, a1, a21)
	wantSubtree(t, st, "s-owner", owner, a, b, a2, a1, a21)
	wantSubtree(t, st, "a21", a21)
	wantSubtree(t, st, "b", b)
}

func testSubtreeKeepsRevoked(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	a, a1, a11 := under("s", "s-owner", "a", 10), under("s", "a", "a1", 20), under("s", "a1", "a11", 30)
	mustGrants(t, st, a, a1, a11)
	ok(t, st.RevokeGrants(t.Context(), []sharevat.GrantID{"a1"}, at(50)))
	a1.Revoked, a1.RevokedAt = true, at(50)
	wantSubtree(t, st, "a", a, a1, a11)
}

func testSubtreeNotFound(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	_, err := st.Subtree(t.Context(), "nope")
	wantCode(t, err, sharevat.ENotFound)
}

// create mints g from its parent with the quota max at g.CreatedAt.
func create(t *testing.T, st sharevat.Store, g sharevat.Grant, maxLive int) error {
	t.Helper()
	return st.CreateChild(t.Context(), g, maxLive)
}

func testChildQuota(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	ok(t, create(t, st, under("s", "s-owner", "c1", 10), 2))
	ok(t, create(t, st, under("s", "s-owner", "c2", 11), 2))
	ok(t, create(t, st, under("s", "c1", "c11", 12), 2)) // a grandchild is not the owner's child
	wantCode(t, create(t, st, under("s", "s-owner", "c3", 13), 2), sharevat.ETooLarge)
	_, err := st.Grant(t.Context(), "c3")
	wantCode(t, err, sharevat.ENotFound)
	ok(t, st.RevokeGrants(t.Context(), []sharevat.GrantID{"c1"}, at(14)))
	c3 := under("s", "s-owner", "c3", 15)
	ok(t, create(t, st, c3, 2))
	wantCode(t, create(t, st, under("s", "s-owner", "c4", 16), 2), sharevat.ETooLarge)
	got, err := st.Grant(t.Context(), "c3")
	ok(t, err)
	sameValue(t, "grant created within the quota", got, c3)
}

func testChildQuotaExpired(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	short := under("s", "s-owner", "short", 10)
	short.ExpiresAt = at(100)
	ok(t, create(t, st, short, 1))
	wantCode(t, create(t, st, under("s", "s-owner", "c2", 99), 1), sharevat.ETooLarge)
	ok(t, create(t, st, under("s", "s-owner", "c2", 100), 1)) // expired at its expiry
}

func testChildUnlimited(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	for _, id := range []string{"c1", "c2", "c3"} {
		ok(t, create(t, st, under("s", "s-owner", id, 10), 0))
	}
	wantSubtree(t, st, "s-owner", ownerOf("s"), under("s", "s-owner", "c1", 10),
		under("s", "s-owner", "c2", 10), under("s", "s-owner", "c3", 10))
	all, err := st.Grants(t.Context(), "s")
	ok(t, err)
	if len(all) != 4 {
		t.Fatalf("Grants(s) has %d grants, want 4", len(all))
	}
}

func testChildErrors(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	mustShare(t, st, "t")
	wantCode(t, create(t, st, under("s", "", "g", 1), 5), sharevat.EInvalid)
	wantCode(t, create(t, st, under("s", "s-owner", "", 1), 5), sharevat.EInvalid)
	wantCode(t, create(t, st, under("s", "nope", "g", 1), 5), sharevat.ENotFound)
	wantCode(t, create(t, st, under("s", "t-owner", "g", 1), 5), sharevat.ENotFound)
	wantCode(t, create(t, st, under("u", "s-owner", "g", 1), 5), sharevat.ENotFound)
	wantCode(t, create(t, st, under("s", "s-owner", "t-owner", 1), 5), sharevat.EConflict)
	_, err := st.Grant(t.Context(), "g")
	wantCode(t, err, sharevat.ENotFound)
	wantSubtree(t, st, "s-owner", ownerOf("s"))
}

// ownerOf is the owner grant of share s as newShare makes it.
func ownerOf(s string) sharevat.Grant {
	_, owner := newShare(s)
	return owner
}
