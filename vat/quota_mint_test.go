package vat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/vat"
)

// serveQuota starts a vat (on the store on) whose grants may each have
// at most max live children.
func serveQuota(t *testing.T, on storeKind, max int, now func() time.Time) *testVat {
	return on.serveConfig(t, nil, func(c *vat.Config) {
		c.MaxChildGrants = max
		c.Now = now
	})
}

// wantQuotaHit fails t unless err is the mint quota's tooLarge.
func wantQuotaHit(t *testing.T, err error, what string) {
	t.Helper()
	isCode(t, err, sharevat.ErrTooLarge, what)
	if err != nil {
		assert.Contains(t, err.Error(), "this grant has minted 3 live grants (the limit is 3); revoke some first", what)
	}
}

// TestMintQuota: a grant with 3 live children (the limit here) is
// refused a fourth by Share.grant and by every save, with tooLarge and
// a message saying what to do; revoking one of them frees room; the quota
// is per grant (a child still mints its own) and the server admin's share
// creation is not counted.
func TestMintQuota(t *testing.T) { onEachStore(t, testMintQuota) }

func testMintQuota(t *testing.T, on storeKind) {
	tv := serveQuota(t, on, 3, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "quota"))
	rd, err := a.Reader(bg)
	require.NoError(t, err)
	app, err := a.Appender(bg)
	require.NoError(t, err)
	first := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeDelegate, 0, "1")
	_, err = rd.Save(bg, 0, "2")
	require.NoError(t, err)
	_, err = app.Save(bg, 0, "3")
	require.NoError(t, err)

	_, err = a.Grant(bg, sharevat.ScopeRead, 0, "4")
	wantQuotaHit(t, err, "Share.grant over the quota")
	_, err = a.Save(bg, 0, "4")
	wantQuotaHit(t, err, "Share.save over the quota")
	_, err = rd.Save(bg, 0, "4")
	wantQuotaHit(t, err, "Reader.save over the quota")
	_, err = app.Save(bg, 0, "4")
	wantQuotaHit(t, err, "Appender.save over the quota")

	c := tv.MustRestore(t, first.Token)
	mustGrant(t, c, sharevat.ScopeRead, 0, "a grandchild: the quota is per grant")

	require.NoError(t, a.Revoke(bg, first.GrantID))
	mustGrant(t, a, sharevat.ScopeRead, 0, "4, after a revoke")
	_, err = a.Save(bg, 0, "5")
	wantQuotaHit(t, err, "full again")

	for range 4 {
		tv.MustCreate(t, "the admin creates shares beyond the quota")
	}
}

// TestMintQuotaExpiryFreesRoom: an expired child no longer counts.
func TestMintQuotaExpiryFreesRoom(t *testing.T) { onEachStore(t, testMintQuotaExpiryFreesRoom) }

func testMintQuotaExpiryFreesRoom(t *testing.T, on storeKind) {
	clk := newClock()
	tv := serveQuota(t, on, 3, clk.Now)
	a := tv.MustRestore(t, tv.MustCreate(t, "expiry"))
	mustGrant(t, a, sharevat.ScopeRead, time.Hour, "short")
	for _, l := range []string{"2", "3"} {
		mustGrant(t, a, sharevat.ScopeRead, 0, l)
	}
	_, err := a.Grant(bg, sharevat.ScopeRead, 0, "4")
	wantQuotaHit(t, err, "at the quota")
	clk.Advance(time.Hour)
	mustGrant(t, a, sharevat.ScopeRead, 0, "4, once short expired")
}

// TestMintQuotaDefault: without configuration a grant may have 1,000
// at most max live children.
func TestMintQuotaDefault(t *testing.T) { onEachStore(t, testMintQuotaDefault) }

func testMintQuotaDefault(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "default"))
	fillGrants(t, tv.Store, a.Access.GrantID, vat.DefaultMaxChildGrants-1)
	mustGrant(t, a, sharevat.ScopeRead, 0, "the 1000th")
	_, err := a.Grant(bg, sharevat.ScopeRead, 0, "the 1001st")
	isCode(t, err, sharevat.ErrTooLarge, "the 1001st")
	assert.Equal(t, 1000, vat.DefaultMaxChildGrants)
}
