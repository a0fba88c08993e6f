package vat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/vat"
)

// readAllOps reads every op of the share behind sh.
func readAllOps(t *testing.T, sh *client.Share) []sharevat.Entry {
	t.Helper()
	rd, err := sh.Reader(bg)
	require.NoError(t, err)
	defer rd.Release()
	var all []sharevat.Entry
	_, err = rd.ReadAll(bg, 0, func(es []sharevat.Entry) error { all = append(all, es...); return nil })
	require.NoError(t, err)
	return all
}

// TestForkByDelegate: a token with read and append may fork
// (docs/decisions.md, "Session lifecycle"): the fork's owner token holds
// every right on the fork and nothing more on the parent; the fork
// records its parent and cursor, keeps the parent's metadata unless
// overridden, and is idle. Children lists it for any reader of the
// parent. A read-only token may not fork (a fork is new durable state:
// issue 32, a reader filled the disk with forks), nor one without read.
func TestForkByDelegate(t *testing.T) { onEachStore(t, testForkByDelegate) }

func testForkByDelegate(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "parent"))
	appendEvents(t, a, "e1", "e2", "e3")
	_, err := a.Update(bg, sharevat.MetaPatch{Status: sharevat.StatusBusy})
	require.NoError(t, err)
	forker := tv.MustRestore(t, mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeAppend, 0, "forker").Token)
	reader := tv.MustRestore(t, mustGrant(t, a, sharevat.ScopeRead, 0, "reader").Token)
	_, _, err = reader.Fork(bg, 2, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrPermissionDenied, "a read-only fork")

	title := "my fork"
	fork, m, err := forker.Fork(bg, 2, sharevat.MetaPatch{Title: &title})
	require.NoError(t, err)
	defer fork.Release()
	assert.Equal(t, sharevat.ScopeOwner, m.Scope, "the forker owns the fork")
	assert.Equal(t, a.Info.ID, fork.Info.ParentID)
	assert.Equal(t, sharevat.Cursor(2), fork.Info.ForkCursor)
	assert.Equal(t, sharevat.Cursor(2), fork.Info.Head)
	assert.Equal(t, "my fork", fork.Info.Meta.Title)
	assert.Equal(t, sharevat.StatusIdle, fork.Info.Meta.Status, "a fork starts idle")
	appendEvents(t, fork, "f3")                           // the fork's owner appends to the fork …
	_, err = forker.Grant(bg, sharevat.ScopeRead, 0, "x") // … and still cannot delegate on the parent
	isCode(t, err, sharevat.ErrPermissionDenied, "the forker gains nothing on the parent")

	kids, err := reader.Children(bg)
	require.NoError(t, err)
	require.Len(t, kids, 1)
	assert.Equal(t, fork.Info.ID, kids[0].ID)
	assert.Equal(t, sharevat.Cursor(3), kids[0].Head)

	appender := tv.MustRestore(t, mustGrant(t, a, sharevat.ScopeAppend, 0, "appender").Token)
	_, _, err = appender.Fork(bg, 1, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrPermissionDenied, "fork without read")
	_, err = appender.Children(bg)
	isCode(t, err, sharevat.ErrPermissionDenied, "children without read")

	tv.Vat.SyncAudit()
	recs, err := tv.Store.AuditLog(bg, fork.Info.ID, 0, 100)
	require.NoError(t, err)
	require.NotEmpty(t, recs)
	assert.Equal(t, sharevat.AuditAction("fork"), recs[0].Action)
	assert.Equal(t, forker.Access.GrantID, recs[0].Parent, "the audit names the grant that forked")
}

// TestForkQuotas: a share has at most MaxForks live forks and a chain of
// forks is at most MaxForkDepth deep; both answer tooLarge. Deleting a
// fork gives its place back.
func TestForkQuotas(t *testing.T) { onEachStore(t, testForkQuotas) }

func testForkQuotas(t *testing.T, on storeKind) {
	tv := on.serveConfig(t, nil, func(c *vat.Config) { c.MaxForks = 2; c.MaxForkDepth = 2 })
	a := tv.MustRestore(t, tv.MustCreate(t, "quota"))
	f1, _, err := a.Fork(bg, 0, sharevat.MetaPatch{})
	require.NoError(t, err)
	f2, _, err := a.Fork(bg, 0, sharevat.MetaPatch{})
	require.NoError(t, err)
	_, _, err = a.Fork(bg, 0, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrTooLarge, "a third live fork")
	require.NoError(t, f1.Delete(bg))
	_, _, err = a.Fork(bg, 0, sharevat.MetaPatch{})
	assert.NoError(t, err, "a deleted fork frees its place")

	grand, _, err := f2.Fork(bg, 0, sharevat.MetaPatch{})
	require.NoError(t, err, "a fork of a fork: depth 2")
	_, _, err = grand.Fork(bg, 0, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrTooLarge, "depth 3")
}

// TestForkOutOfRange: forking past the head is invalid; at 0 and at the
// head work.
func TestForkOutOfRange(t *testing.T) { onEachStore(t, testForkOutOfRange) }

func testForkOutOfRange(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "range"))
	appendEvents(t, a, "e1", "e2")
	_, _, err := a.Fork(bg, 3, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrInvalid, "past the head")
	for _, at := range []sharevat.Cursor{0, 2} {
		f, _, err := a.Fork(bg, at, sharevat.MetaPatch{})
		require.NoError(t, err, "at %d", at)
		assert.Len(t, readAllOps(t, f), int(at))
	}
}

// TestDeleteCutsEverythingLive: deleting a share kills, at once, the
// deleter's own capability, a delegate's capabilities and facets, and
// their subscriptions (which end revoked), exactly as an epoch bump does;
// its tokens no longer redeem; it stays listed as deleted; the owner's
// fork lives on, the delegate's dies with the delegate's grant (what a
// grant's holder makes through it is revoked with it); a token without
// admin may not delete.
func TestDeleteCutsEverythingLive(t *testing.T) { onEachStore(t, testDeleteCutsEverythingLive) }

func testDeleteCutsEverythingLive(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "doomed"))
	appendN(t, a, "a", 5, 5, `{}`)
	bm := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeAppend|sharevat.ScopeDelegate, 0, "B")
	b := tv.MustRestore(t, bm.Token)
	bRead, err := b.Reader(bg)
	require.NoError(t, err)
	sub, got := subscribeAs(t, tv, bm.Token)
	got.waitFor(t, 5)
	fork, _, err := a.Fork(bg, 5, sharevat.MetaPatch{})
	require.NoError(t, err)
	bFork, _, err := b.Fork(bg, 5, sharevat.MetaPatch{})
	require.NoError(t, err)

	isCode(t, b.Delete(bg), sharevat.ErrPermissionDenied, "delete without admin")
	start := time.Now()
	require.NoError(t, a.Delete(bg))
	waitDone(t, sub, start, "B's subscription")
	isCode(t, sub.Err(), sharevat.ErrRevoked, "B's subscription ends revoked")
	_, _, err = a.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "the deleter's own capability")
	_, _, err = bRead.Read(bg, 0, 0)
	isCode(t, err, sharevat.ErrRevoked, "B's reader")
	_, err = tv.MustDial(t).Redeem(bg, bm.Token)
	isCode(t, err, sharevat.ErrUnauthorized, "B's token")
	_, _, err = bFork.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "B's fork")

	assert.Len(t, readAllOps(t, fork), 5, "the fork lives on")
	info, _, err := fork.Fetch(bg)
	require.NoError(t, err)
	assert.Equal(t, a.Info.ID, info.ParentID, "and keeps its parent's id")

	admin, err := tv.MustDial(t).RedeemAdmin(bg, tv.Admin)
	require.NoError(t, err)
	live, _, err := admin.List(bg, sharevat.ListFilter{})
	require.NoError(t, err)
	assert.NotContains(t, ids(live), a.Info.ID, "not listed by default")
	all, _, err := admin.List(bg, sharevat.ListFilter{WithDeleted: true})
	require.NoError(t, err)
	require.Contains(t, ids(all), a.Info.ID, "listed with deleted ones")
	for _, sh := range all {
		if sh.ID == a.Info.ID {
			assert.True(t, sh.Deleted)
		}
	}
	tv.Vat.SyncAudit()
	recs, err := tv.Store.AuditLog(bg, a.Info.ID, 0, 1000)
	require.NoError(t, err)
	assert.Equal(t, sharevat.AuditAction("delete"), recs[len(recs)-1].Action, "an audit record stays")
}

func ids(shares []sharevat.Share) []sharevat.ShareID {
	out := make([]sharevat.ShareID, len(shares))
	for i := range shares {
		out[i] = shares[i].ID
	}
	return out
}
