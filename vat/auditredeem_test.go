package vat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/vat"
)

// TestRedeemAuditIsBounded: redeems are the audit records a caller
// without a token can cause. Invariant: 200 failed redeems from one
// host (wrong secrets naming 4 different grants, on 4 connections)
// write one record in an interval, and one more in the next interval;
// 50 redeems of one grant on one connection (a door's request stream)
// write one record; a redeem of the same grant on a new connection is
// recorded.
func TestRedeemAuditIsBounded(t *testing.T) { onEachStore(t, testRedeemAuditIsBounded) }

func testRedeemAuditIsBounded(t *testing.T, on storeKind) {
	clk := newClock()
	tv := on.serveConfig(t, nil, func(c *vat.Config) { c.Now = clk.Now })
	var owners []string
	for range 4 {
		owners = append(owners, tv.MustCreate(t, "s"))
	}
	junk := func(n int) {
		for i := range n {
			_, err := tv.MustDial(t).Redeem(bg, vattest.WrongSecret(owners[i%len(owners)]))
			require.Error(t, err)
		}
	}
	failed := func() int { return countRedeems(t, tv, func(r sharevat.AuditRecord) bool { return r.Result != "ok" }) }
	junk(200)
	require.Equal(t, 1, failed(), "200 junk redeems in one interval")
	clk.Advance(time.Minute)
	junk(200)
	require.Equal(t, 2, failed(), "200 more in the next interval")

	owner := tv.MustRestore(t, owners[0])
	conn := tv.MustDial(t)
	for range 50 {
		sh, err := conn.Redeem(bg, owners[1])
		require.NoError(t, err)
		sh.Release()
	}
	ok := func(g sharevat.GrantID) int {
		return countRedeems(t, tv, func(r sharevat.AuditRecord) bool { return r.Result == "ok" && r.GrantID == g })
	}
	g1 := tv.MustRestore(t, owners[1]).Access.GrantID
	require.Equal(t, 2, ok(g1), "50 redeems on one connection, and one on another")
	require.Equal(t, 1, ok(owner.Access.GrantID))
}

// countRedeems counts the redeem records that match.
func countRedeems(t *testing.T, tv *testVat, match func(sharevat.AuditRecord) bool) int {
	t.Helper()
	tv.Vat.SyncAudit()
	recs, err := tv.Store.AuditLog(bg, "", 0, 10_000)
	require.NoError(t, err)
	n := 0
	for _, r := range recs {
		if r.Action == sharevat.AuditRedeem && match(r) {
			n++
		}
	}
	return n
}
