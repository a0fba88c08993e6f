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

// prompt is how soon a revoke must reach a live subscription. Generous
// for loaded CI machines; in practice it takes a millisecond or so.
const prompt = 5 * time.Second

// TestSubscribeRevokedDuringTail: the owner grants read to B; B follows
// the share both with a bare subscription and with client.Tail; the
// owner revokes B's grant while both idle. Invariants: both end promptly,
// without waiting for another op, with errors.Is(err, ErrRevoked); Tail
// delivered every op before the revoke exactly once; and Tail made no
// further redeem attempt (it does not retry a permanent error).
func TestSubscribeRevokedDuringTail(t *testing.T) { onEachStore(t, testSubscribeRevokedDuringTail) }

func testSubscribeRevokedDuringTail(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "revoke-tail"))
	appendN(t, a, "a", 20, 5, `{}`)
	bm := mustGrant(t, a, sharevat.ScopeRead, 0, "B")

	sub, got := subscribeAs(t, tv, bm.Token)
	got.waitFor(t, 20)
	tailed, tailErr := tailAs(t, tv, bm.Token)
	tailed.waitFor(t, 20)
	before := redeems(t, tv, bm.GrantID)
	require.Equal(t, 2, before, "one redeem for the bare subscription, one by Tail")

	start := time.Now()
	require.NoError(t, a.Revoke(bg, bm.GrantID))
	took := waitDone(t, sub, start, "subscription")
	isCode(t, sub.Err(), sharevat.ErrRevoked, "the subscription's end")
	err := waitErr(t, tailErr)
	tailTook := time.Since(start)
	isCode(t, err, sharevat.ErrRevoked, "Tail's return")
	t.Logf("revoke reached the subscription in %v, Tail in %v", took, tailTook)
	assert.Less(t, tailTook, prompt, "promptly")
	assert.Equal(t, dense(0, 20), tailed.got(), "Tail delivered 1..20 once each")
	assert.Equal(t, before, redeems(t, tv, bm.GrantID), "Tail made no redeem attempt after the revoke")
}

// TestSubscribeEpochBumpDuringTail: an epoch bump fences every earlier
// grant. Invariants: B's Tail and the owner's own old subscription end
// promptly with ErrRevoked; Tail made no second redeem.
func TestSubscribeEpochBumpDuringTail(t *testing.T) { onEachStore(t, testSubscribeEpochBumpDuringTail) }

func testSubscribeEpochBumpDuringTail(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "bump-tail")
	a := tv.MustRestore(t, owner)
	appendN(t, a, "a", 5, 5, `{}`)
	bm := mustGrant(t, a, sharevat.ScopeRead, 0, "B")
	ownSub, _ := subscribeAs(t, tv, owner)
	tailed, tailErr := tailAs(t, tv, bm.Token)
	tailed.waitFor(t, 5)

	start := time.Now()
	_, _, err := a.BumpEpoch(bg)
	require.NoError(t, err)
	isCode(t, waitErr(t, tailErr), sharevat.ErrRevoked, "B's Tail after the bump")
	waitDone(t, ownSub, start, "owner's old subscription")
	isCode(t, ownSub.Err(), sharevat.ErrRevoked, "the owner's old subscription")
	assert.Less(t, time.Since(start), prompt, "promptly")
	assert.Equal(t, 1, redeems(t, tv, bm.GrantID), "no redeem after the bump")
}

// TestSubscribeExpiredGrant: expiry (through the injected clock) is
// checked before every push. Invariants: after the grant's expiry, the
// next op is not pushed and the subscription ends revoked.
func TestSubscribeExpiredGrant(t *testing.T) { onEachStore(t, testSubscribeExpiredGrant) }

func testSubscribeExpiredGrant(t *testing.T, on storeKind) {
	clk := newClock()
	tv := on.serveConfig(t, nil, func(c *vat.Config) { c.Now = clk.Now })
	a := tv.MustRestore(t, tv.MustCreate(t, "expiry"))
	appendN(t, a, "a", 3, 3, `{}`)
	cm := mustGrant(t, a, sharevat.ScopeRead, time.Hour, "C")
	sub, got := subscribeAs(t, tv, cm.Token)
	got.waitFor(t, 3)

	clk.Advance(time.Hour)
	appendN(t, a, "b", 1, 1, `{}`)
	waitDone(t, sub, time.Now(), "expired subscription")
	isCode(t, sub.Err(), sharevat.ErrRevoked, "an expired grant's subscription")
	assert.Equal(t, dense(0, 3), got.got(), "nothing pushed after expiry")
}

// TestSubscribeRevokeWithSlowHandler: a revoke reaches a subscription
// whose handler is blocked with pushes queued behind it. Invariants: the
// end arrives after the pushes already sent (E-order), so the handler
// sees a prefix 1..k of the log, in order, and then the subscription
// ends revoked.
func TestSubscribeRevokeWithSlowHandler(t *testing.T) {
	onEachStore(t, testSubscribeRevokeWithSlowHandler)
}

func testSubscribeRevokeWithSlowHandler(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "revoke-slow"))
	appendN(t, a, "a", 200, 20, `{"pad":"0123456789"}`)
	bm := mustGrant(t, a, sharevat.ScopeRead, 0, "B")
	rd, err := tv.MustRestore(t, bm.Token).Reader(bg)
	require.NoError(t, err)
	unblock, got := make(chan struct{}), newProgress()
	sub, err := rd.Subscribe(bg, 0, func(es []sharevat.Entry) error {
		<-unblock
		got.add(es)
		return nil
	})
	require.NoError(t, err)
	defer sub.Close()

	require.NoError(t, a.Revoke(bg, bm.GrantID))
	close(unblock)
	waitDone(t, sub, time.Now(), "revoked slow subscription")
	isCode(t, sub.Err(), sharevat.ErrRevoked, "end after the queued pushes")
	k := sub.Cursor()
	assert.Equal(t, dense(0, k), got.got(), "a gapless prefix was delivered before the end")
}

// subscribeAs subscribes from 0 with a fresh connection for token.
func subscribeAs(t *testing.T, tv *testVat, token string) (*client.Subscription, *progress) {
	t.Helper()
	rd, err := tv.MustRestore(t, token).Reader(bg)
	require.NoError(t, err)
	got := newProgress()
	sub, err := rd.Subscribe(bg, 0, func(es []sharevat.Entry) error { got.add(es); return nil })
	require.NoError(t, err)
	t.Cleanup(sub.Close)
	return sub, got
}

// tailAs runs client.Tail from 0 with a Redeemer for token; the channel
// gets Tail's return.
func tailAs(t *testing.T, tv *testVat, token string) (*progress, <-chan error) {
	t.Helper()
	s := client.NewRedeemer(tv.URL, token, nil)
	ctx, cancel := context.WithCancel(bg)
	errc, done := make(chan error, 1), make(chan struct{})
	got := newProgress()
	go func() {
		defer close(done)
		errc <- client.Tail(ctx, s, 0, func(e sharevat.Entry) error { got.add([]sharevat.Entry{e}); return nil })
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		s.Close()
	})
	return got, errc
}

func waitErr(t *testing.T, errc <-chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(patience):
		t.Fatal("Tail did not return")
		return errors.New("unreachable")
	}
}

// redeems counts the redeem audit records of grant id, failed ones
// included (those carry no share id: the vault does not reveal it).
func redeems(t *testing.T, tv *testVat, id sharevat.GrantID) int {
	t.Helper()
	tv.Vat.SyncAudit()
	recs, err := tv.Store.AuditLog(bg, "", 0, 10_000)
	require.NoError(t, err)
	n := 0
	for _, r := range recs {
		if r.Action == sharevat.AuditRedeem && r.GrantID == id {
			n++
		}
	}
	return n
}
