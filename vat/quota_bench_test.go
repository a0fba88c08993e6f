package vat_test

import (
	"crypto/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/sturdyref"
)

// bigShareGrants is how many grants the big-share benchmarks put in one
// share (a hostile peer was once seen minting 51,510 from one token).
const bigShareGrants = 50_000

// BenchmarkBigShare measures, in a share holding bigShareGrants grants,
// what should cost only what the subtree costs: revoking one leaf grant
// (as the read+delegate token that minted all of them) and listing a
// small subtree (a token with 9 grants below it), each over a real
// WebSocket.
func BenchmarkBigShare(b *testing.B) {
	tv := MustServe(b, sharevat.Limits{}, nil)
	owner := tv.MustRestore(b, tv.MustCreate(b, "big"))
	minter := tv.MustRestore(b, mustMint(b, owner, "minter").Token)
	leaves := fillGrants(b, tv.Store, minter.Access.GrantID, bigShareGrants)
	small := tv.MustRestore(b, mustMint(b, owner, "small").Token)
	for i := range 9 {
		mustMint(b, small, string(rune('a'+i)))
	}
	b.Run("RevokeLeaf", func(b *testing.B) {
		i := 0
		for b.Loop() {
			require.NoError(b, minter.Revoke(bg, leaves[i%len(leaves)]))
			i++
		}
	})
	b.Run("GrantsSmallSubtree", func(b *testing.B) {
		for b.Loop() {
			gs, err := small.Grants(bg)
			require.NoError(b, err)
			require.Len(b, gs, 10)
		}
	})
}

// mustMint mints a read+delegate token from sh.
func mustMint(tb testing.TB, sh *client.Share, label string) sharevat.Minted {
	tb.Helper()
	m, err := sh.Grant(bg, sharevat.ScopeRead|sharevat.ScopeDelegate, 0, label)
	require.NoError(tb, err)
	return m
}

// fillGrants stores n read-only children of parent straight into st (as
// minting them would, without the round trips) and returns their ids.
func fillGrants(tb testing.TB, st sharevat.Store, parent sharevat.GrantID, n int) []sharevat.GrantID {
	tb.Helper()
	p, err := st.Grant(bg, parent)
	require.NoError(tb, err)
	ids := make([]sharevat.GrantID, n)
	now := time.Now().UTC()
	for i := range ids {
		tok, err := sturdyref.New(rand.Reader)
		require.NoError(tb, err)
		ids[i] = tok.GrantID
		g := sharevat.Grant{ID: tok.GrantID, ShareID: p.ShareID, Parent: parent, Scope: sharevat.ScopeRead,
			Epoch: p.Epoch, Verifier: []byte("v"), Label: "filler", CreatedBy: "bench", CreatedAt: now}
		require.NoError(tb, st.CreateGrant(bg, g))
	}
	return ids
}
