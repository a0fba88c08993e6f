package vat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// TestDelegateForkDiesWithTheDelegate (issue 32, bug 5): a delegate with
// read,append,delegate forks the share, and its fork's owner forks
// again and bumps the fork's epoch. When the owner revokes the
// delegate's grant, every token of what the delegate made that way is
// refused at its next redeem, and every live capability of it answers
// revoked at once (before: the fork's owner token kept working). The
// owner's own fork, made by the share's root grant, lives on.
func TestDelegateForkDiesWithTheDelegate(t *testing.T) {
	onEachStore(t, testDelegateForkDiesWithTheDelegate)
}

func testDelegateForkDiesWithTheDelegate(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	owner := tv.MustRestore(t, tv.MustCreate(t, "parent"))
	dm := mustGrant(t, owner, sharevat.ScopeRead|sharevat.ScopeAppend|sharevat.ScopeDelegate, 0, "delegate")
	delegate := tv.MustRestore(t, dm.Token)

	fork, fm := mustFork(t, delegate)
	forkOfFork, ffm := mustFork(t, fork)
	reader := mustGrant(t, fork, sharevat.ScopeRead, 0, "a reader of the fork")
	bumped, _, err := fork.BumpEpoch(bg) // a bump must not free the fork
	require.NoError(t, err)
	liveBumped := tv.MustRestore(t, bumped.Token)
	ownFork, om := mustFork(t, owner)
	gs, err := delegate.Grants(bg)
	require.NoError(t, err)
	if assert.Len(t, gs, 1, "the delegate's listing holds its own share's grants only, not its forks' roots") {
		assert.Equal(t, dm.GrantID, gs[0].ID)
	}

	require.NoError(t, owner.Revoke(bg, dm.GrantID))

	for name, sh := range map[string]*client.Share{"the fork (bumped)": liveBumped, "the fork of the fork": forkOfFork} {
		_, err := sh.Children(bg)
		isCode(t, err, sharevat.ErrRevoked, name+": a live capability after the revoke")
	}
	for name, token := range map[string]string{"the fork's first owner": fm.Token, "the fork's owner after its bump": bumped.Token,
		"the fork of the fork's owner": ffm.Token, "a reader of the fork": reader.Token} {
		_, err := tv.MustDial(t).Redeem(bg, token)
		isCode(t, err, sharevat.ErrUnauthorized, name+": a redeem after the revoke")
	}
	_, err = ownFork.Children(bg)
	assert.NoError(t, err, "the owner's own fork lives on")
	_, err = tv.MustDial(t).Redeem(bg, om.Token)
	assert.NoError(t, err, "the owner's own fork's token still redeems")

	_, _, err = delegate.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "the delegate itself")
}

// TestOwnerForkOutlivesItsBump: a fork made by the share's owner root
// outlives an epoch bump of the parent (which fences every grant of the
// parent's earlier epoch), as a created share would.
func TestOwnerForkOutlivesItsBump(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustRestore(t, tv.MustCreate(t, "parent"))
	fork, fm := mustFork(t, owner)
	_, _, err := owner.BumpEpoch(bg)
	require.NoError(t, err)
	_, err = fork.Children(bg)
	assert.NoError(t, err, "the live fork capability after the parent's bump")
	_, err = tv.MustDial(t).Redeem(bg, fm.Token)
	assert.NoError(t, err, "the fork's owner token after the parent's bump")
}

// mustFork forks sh at cursor 0 and returns the fork and its owner token.
func mustFork(t *testing.T, sh *client.Share) (*client.Share, sharevat.Minted) {
	t.Helper()
	fork, m, err := sh.Fork(bg, 0, sharevat.MetaPatch{})
	require.NoError(t, err)
	t.Cleanup(fork.Release)
	return fork, m
}
