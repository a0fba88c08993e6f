package vat_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/vat"
)

var bg = context.Background()

// mustGrant mints a token from sh.
func mustGrant(t *testing.T, sh *client.Share, scope sharevat.Scope, ttl time.Duration, label string) sharevat.Minted {
	t.Helper()
	m, err := sh.Grant(bg, scope, ttl, label)
	require.NoError(t, err)
	return m
}

func isCode(t *testing.T, err error, want *sharevat.Error, msg string) {
	t.Helper()
	assert.True(t, errors.Is(err, want), "%s: want %s, got %v", msg, want.Code, err)
}

// Use 1: owner A mints read-only (no delegate) for B. B reads and
// snapshots; B's append, grant, revoke and bump are permissionDenied.
func TestReadOnlyHandout(t *testing.T) { onEachStore(t, testReadOnlyHandout) }

func testReadOnlyHandout(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "use1"))
	appendEvents(t, a, "a1", "a2")
	m := mustGrant(t, a, sharevat.ScopeRead, 0, "B")
	assert.Equal(t, sharevat.ScopeRead, m.Scope)
	b := tv.MustRestore(t, m.Token)
	assert.Equal(t, sharevat.ScopeRead, b.Access.Scope)

	rd, err := b.Reader(bg)
	require.NoError(t, err)
	entries, _, err := rd.Read(bg, 0, 0)
	require.NoError(t, err)
	assert.Len(t, entries, 2)
	_, _, err = rd.Snapshot(bg)
	require.NoError(t, err)

	_, err = b.Appender(bg)
	isCode(t, err, sharevat.ErrPermissionDenied, "B appender")
	_, err = b.Grant(bg, sharevat.ScopeRead, 0, "C")
	isCode(t, err, sharevat.ErrPermissionDenied, "B grant")
	_, err = rd.Save(bg, 0, "")
	isCode(t, err, sharevat.ErrPermissionDenied, "B save")
	err = b.Revoke(bg, a.Access.GrantID)
	isCode(t, err, sharevat.ErrPermissionDenied, "B revoke of A")
	_, _, err = b.BumpEpoch(bg)
	isCode(t, err, sharevat.ErrPermissionDenied, "B bump")
	title := "x"
	_, err = b.Update(bg, sharevat.MetaPatch{Title: &title})
	isCode(t, err, sharevat.ErrPermissionDenied, "B update")
}

// Use 2: A mints read+append+delegate for C with a TTL; C mints read-only
// for D; C cannot mint broader scope or a longer expiry; grants shows
// A → C → D.
func TestDelegationChain(t *testing.T) { onEachStore(t, testDelegationChain) }

func testDelegationChain(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "use2"))
	cm := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeAppend|sharevat.ScopeDelegate, time.Hour, "C")
	c := tv.MustRestore(t, cm.Token)
	assert.False(t, c.Access.ExpiresAt.IsZero(), "C's grant expires")
	dm := mustGrant(t, c, sharevat.ScopeRead, 0, "D")
	assert.Equal(t, cm.ExpiresAt, dm.ExpiresAt, "ttl 0 inherits the parent's expiry")

	_, err := c.Grant(bg, sharevat.ScopeRead|sharevat.ScopeAdmin, 0, "too broad")
	isCode(t, err, sharevat.ErrPermissionDenied, "broader scope")
	_, err = c.Grant(bg, sharevat.ScopeRead, 2*time.Hour, "too long")
	isCode(t, err, sharevat.ErrPermissionDenied, "longer expiry")
	_, err = c.Grant(bg, 0, 0, "empty")
	isCode(t, err, sharevat.ErrInvalid, "empty scope")

	app, err := c.Appender(bg)
	require.NoError(t, err)
	am, err := app.Save(bg, 0, "append only")
	require.NoError(t, err)
	assert.Equal(t, sharevat.ScopeAppend, am.Scope, "Appender.save mints exactly append")

	grants, err := a.Grants(bg)
	require.NoError(t, err)
	parent := map[sharevat.GrantID]sharevat.GrantID{}
	for _, g := range grants {
		parent[g.ID] = g.Parent
		assert.Empty(t, g.Verifier)
	}
	assert.Equal(t, sharevat.GrantID(""), parent[a.Access.GrantID], "A is the root")
	assert.Equal(t, a.Access.GrantID, parent[cm.GrantID], "A → C")
	assert.Equal(t, cm.GrantID, parent[dm.GrantID], "C → D")
	assert.Equal(t, cm.GrantID, parent[am.GrantID], "C → saved appender")

	own, err := c.Grants(bg)
	require.NoError(t, err)
	assert.Len(t, own, 3, "a non-admin sees its own subtree: C, D, the saved appender")
}

// Use 3: A revokes C while C and D are connected: both are refused on
// their next call (revoked) and at restore (unauthorized); B is untouched.
func TestRevokeSubtreeLive(t *testing.T) { onEachStore(t, testRevokeSubtreeLive) }

func testRevokeSubtreeLive(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "use3"))
	bm := mustGrant(t, a, sharevat.ScopeRead, 0, "B")
	cm := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeAppend|sharevat.ScopeDelegate, 0, "C")
	b, c := tv.MustRestore(t, bm.Token), tv.MustRestore(t, cm.Token)
	dm := mustGrant(t, c, sharevat.ScopeRead, 0, "D")
	d := tv.MustRestore(t, dm.Token)
	cApp, err := c.Appender(bg)
	require.NoError(t, err)
	dRead, err := d.Reader(bg)
	require.NoError(t, err)

	require.NoError(t, a.Revoke(bg, cm.GrantID))

	_, _, err = c.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "C's Share")
	_, err = cApp.Append(bg, eventBatch(1, "c1"))
	isCode(t, err, sharevat.ErrRevoked, "C's Appender")
	_, _, err = dRead.Read(bg, 0, 0)
	isCode(t, err, sharevat.ErrRevoked, "D's Reader")
	for name, tok := range map[string]string{"C": cm.Token, "D": dm.Token} {
		_, err := tv.MustDial(t).Redeem(bg, tok)
		isCode(t, err, sharevat.ErrUnauthorized, name+" restore")
	}
	_, _, err = b.Fetch(bg)
	assert.NoError(t, err, "B is untouched")

	grants, err := a.Grants(bg)
	require.NoError(t, err)
	for _, g := range grants {
		want := g.ID == cm.GrantID || g.ID == dm.GrantID
		assert.Equal(t, want, g.Revoked, "grant %s (%s) revoked", g.ID, g.Label)
	}
	err = c.Revoke(bg, bm.GrantID)
	isCode(t, err, sharevat.ErrRevoked, "a revoked holder cannot revoke")
	err = a.Revoke(bg, "nosuchgrant")
	isCode(t, err, sharevat.ErrNotFound, "unknown grant")
}

// A holder may revoke grants in its own subtree but not its siblings'.
func TestRevokeOwnSubtreeOnly(t *testing.T) { onEachStore(t, testRevokeOwnSubtreeOnly) }

func testRevokeOwnSubtreeOnly(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "subtree"))
	cm := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeDelegate, 0, "C")
	em := mustGrant(t, a, sharevat.ScopeRead, 0, "E (sibling)")
	c := tv.MustRestore(t, cm.Token)
	dm := mustGrant(t, c, sharevat.ScopeRead, 0, "D")
	isCode(t, c.Revoke(bg, em.GrantID), sharevat.ErrPermissionDenied, "C revokes a sibling")
	require.NoError(t, c.Revoke(bg, dm.GrantID), "C revokes its own child")
	_, err := tv.MustDial(t).Redeem(bg, dm.Token)
	isCode(t, err, sharevat.ErrUnauthorized, "D is gone")
	_, _, err = c.Fetch(bg)
	assert.NoError(t, err, "C lives on")
}

// Use 4: A bumps the epoch: every earlier token fails at restore and on
// live capabilities; the new owner token works; appends that carry the old
// epoch are rejected staleEpoch.
func TestBumpEpoch(t *testing.T) { onEachStore(t, testBumpEpoch) }

func testBumpEpoch(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "use4")
	a := tv.MustRestore(t, owner)
	bm := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeAppend, 0, "B")
	b := tv.MustRestore(t, bm.Token)
	bApp, err := b.Appender(bg)
	require.NoError(t, err)

	m, epoch, err := a.BumpEpoch(bg)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Epoch(2), epoch)

	_, err = bApp.Append(bg, eventBatch(1, "b1"))
	isCode(t, err, sharevat.ErrRevoked, "B's live Appender")
	_, _, err = a.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "A's own old capability")
	for name, tok := range map[string]string{"owner": owner, "B": bm.Token} {
		_, err := tv.MustDial(t).Redeem(bg, tok)
		isCode(t, err, sharevat.ErrUnauthorized, name+" restore")
	}

	a2 := tv.MustRestore(t, m.Token)
	assert.Equal(t, sharevat.Epoch(2), a2.Access.Epoch)
	grants, err := a2.Grants(bg)
	require.NoError(t, err)
	for _, g := range grants {
		if g.ID == bm.GrantID {
			assert.False(t, g.LastUsed.IsZero(), "B's last use survives the bump")
		}
	}
	app, err := a2.Appender(bg)
	require.NoError(t, err)
	ack, err := app.Append(bg, eventBatch(1, "old-epoch"))
	require.NoError(t, err)
	assert.Equal(t, sharevat.ReasonStaleEpoch, ack.Results[0].Reason)
	ack, err = app.Append(bg, eventBatch(2, "new-epoch"))
	require.NoError(t, err)
	assert.Equal(t, 1, ack.Applied)
}

// Use 5: expiry through the injected clock: an expired grant fails at
// restore and on live capabilities, and so do its children.
func TestExpiry(t *testing.T) { onEachStore(t, testExpiry) }

func testExpiry(t *testing.T, on storeKind) {
	clk := newClock()
	tv := on.serveConfig(t, nil, func(c *vat.Config) { c.Now = clk.Now })
	a := tv.MustRestore(t, tv.MustCreate(t, "use5"))
	cm := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeDelegate, time.Hour, "C")
	c := tv.MustRestore(t, cm.Token)
	dm := mustGrant(t, c, sharevat.ScopeRead, 0, "D")
	d := tv.MustRestore(t, dm.Token)
	clk.Advance(59 * time.Minute)
	_, _, err := c.Fetch(bg)
	require.NoError(t, err, "not yet expired")

	clk.Advance(time.Minute)
	_, _, err = c.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "C at expiry")
	_, _, err = d.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "D with its parent expired")
	_, err = tv.MustDial(t).Redeem(bg, cm.Token)
	isCode(t, err, sharevat.ErrUnauthorized, "C restore")
	_, _, err = a.Fetch(bg)
	assert.NoError(t, err, "the owner never expires")
}

func eventBatch(epoch sharevat.Epoch, ids ...string) *sharevat.Batch {
	b := &sharevat.Batch{BatchID: "batch-" + ids[0], Epoch: epoch}
	for _, id := range ids {
		b.Ops = append(b.Ops, op(id, "event", "", `{}`))
	}
	return b
}

func appendEvents(t *testing.T, sh *client.Share, ids ...string) {
	t.Helper()
	app, err := sh.Appender(bg)
	require.NoError(t, err)
	defer app.Release()
	ack, err := app.Append(bg, eventBatch(sh.Access.Epoch, ids...))
	require.NoError(t, err)
	require.Equal(t, len(ids), ack.Applied)
}

// TestAdminResetOwner: the server admin recovers a share whose owner
// token is lost: every earlier token dies, the new one works; unknown
// shares are notFound; an open-server Admin may not.
func TestAdminResetOwner(t *testing.T) { onEachStore(t, testAdminResetOwner) }

func testAdminResetOwner(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "lost")
	a := tv.MustRestore(t, owner)
	bm := mustGrant(t, a, sharevat.ScopeRead, 0, "B")
	admin, err := tv.MustDial(t).RedeemAdmin(bg, tv.Admin)
	require.NoError(t, err)

	m, epoch, err := admin.ResetOwner(bg, a.Info.ID)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Epoch(2), epoch)
	assert.Equal(t, sharevat.ScopeOwner, m.Scope)
	_, _, err = a.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "the old owner's live capability")
	for name, tok := range map[string]string{"owner": owner, "B": bm.Token} {
		_, err := tv.MustDial(t).Redeem(bg, tok)
		isCode(t, err, sharevat.ErrUnauthorized, name+" restore")
	}
	a2 := tv.MustRestore(t, m.Token)
	appendEvents(t, a2, "after-reset")

	_, _, err = admin.ResetOwner(bg, "nosuchshare")
	isCode(t, err, sharevat.ErrNotFound, "unknown share")
}
