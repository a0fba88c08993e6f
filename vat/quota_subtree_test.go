package vat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// TestRevokeAndListThroughTheIndex: a holder without admin lists and
// revokes by walking the parent index: C sees exactly C, D, E (not its
// sibling, not another share's grants), may revoke E two levels down,
// may not revoke its parent's grant or a sibling, and a grant of another
// share is notFound even to an owner.
func TestRevokeAndListThroughTheIndex(t *testing.T) { onEachStore(t, testRevokeAndListThroughTheIndex) }

func testRevokeAndListThroughTheIndex(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "one"))
	other := tv.MustRestore(t, tv.MustCreate(t, "two"))
	rw := sharevat.ScopeRead | sharevat.ScopeDelegate
	cm, sib := mustGrant(t, a, rw, 0, "C"), mustGrant(t, a, rw, 0, "sibling")
	c := tv.MustRestore(t, cm.Token)
	dm := mustGrant(t, c, rw, 0, "D")
	em := mustGrant(t, tv.MustRestore(t, dm.Token), sharevat.ScopeRead, 0, "E")
	xm := mustGrant(t, other, rw, 0, "X of share two")

	got, err := c.Grants(bg)
	require.NoError(t, err)
	assert.Equal(t, []string{"C", "D", "E"}, labels(got))

	isCode(t, c.Revoke(bg, sib.GrantID), sharevat.ErrPermissionDenied, "C revokes its sibling")
	isCode(t, c.Revoke(bg, a.Access.GrantID), sharevat.ErrPermissionDenied, "C revokes the owner")
	isCode(t, c.Revoke(bg, xm.GrantID), sharevat.ErrNotFound, "C revokes another share's grant")
	isCode(t, a.Revoke(bg, xm.GrantID), sharevat.ErrNotFound, "an owner revokes another share's grant")
	require.NoError(t, c.Revoke(bg, em.GrantID), "C revokes E, below D")

	got, err = c.Grants(bg)
	require.NoError(t, err)
	for _, g := range got {
		assert.Equal(t, g.ID == em.GrantID, g.Revoked, "grant %s revoked", g.Label)
	}
	_, err = tv.MustDial(t).Redeem(bg, xm.Token)
	assert.NoError(t, err, "X of share two is untouched")
}

// labels returns the grants' labels in order.
func labels(gs []sharevat.Grant) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.Label
	}
	return out
}
