package vat_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/vat"
)

// capWatch is an Observer that signals every change in the number of live
// capabilities, so tests wait for releases (which go-capnp delivers
// asynchronously) on a channel.
type capWatch struct{ changed chan struct{} }

var _ vat.Observer = capWatch{}

func newCapWatch() capWatch { return capWatch{changed: make(chan struct{}, 1)} }

func (capWatch) Redeemed(bool)                        {}
func (capWatch) Appended(sharevat.Ack, time.Duration) {}
func (capWatch) Revoked(int)                          {}
func (capWatch) LimitHit(string)                      {}
func (capWatch) EpochBumped()                         {}

func (w capWatch) Capabilities(int) {
	select {
	case w.changed <- struct{}{}:
	default: // a signal is pending already
	}
}

// waitCaps waits until the vat holds want live capabilities.
func (w capWatch) waitCaps(t *testing.T, v *vat.Vat, want int64, what string) {
	t.Helper()
	timeout := time.After(patience)
	for v.LiveCapabilities() != want {
		select {
		case <-w.changed:
		case <-timeout:
			t.Fatalf("%s: %d live capabilities, want %d", what, v.LiveCapabilities(), want)
		}
	}
}

// TestConnCapabilityLimit: a connection may hold MaxConnCapabilities
// capabilities; the call that would hand out one more (reader, restore,
// restoreAdmin) answers tooLarge, releasing one frees a slot, another
// connection is not affected, and closing the connections returns every
// capability.
func TestConnCapabilityLimit(t *testing.T) {
	const limit = 5
	watch := newCapWatch()
	tv := MustServeConfig(t, nil, func(c *vat.Config) {
		c.MaxConnCapabilities = limit
		c.Observer = watch
	})
	owner := tv.MustCreate(t, "caps")
	watch.waitCaps(t, tv.Vat, 0, "after create")

	connA := tv.MustDial(t)
	shA, err := connA.Redeem(bg, owner)
	require.NoError(t, err)
	readers := make([]*client.Reader, limit-1) // the Share is the first of limit
	for i := range readers {
		readers[i], err = shA.Reader(bg)
		require.NoError(t, err, "reader %d of %d", i+1, len(readers))
	}
	_, err = shA.Reader(bg)
	isCode(t, err, sharevat.ErrTooLarge, "reader over the limit")
	_, err = connA.Redeem(bg, owner)
	isCode(t, err, sharevat.ErrTooLarge, "restore over the limit")
	_, err = connA.RedeemAdmin(bg, tv.Admin)
	isCode(t, err, sharevat.ErrTooLarge, "restoreAdmin over the limit")

	connB := tv.MustDial(t)
	shB, err := connB.Redeem(bg, owner)
	require.NoError(t, err, "another connection is not affected")
	rdB, err := shB.Reader(bg)
	require.NoError(t, err, "another connection is not affected")
	watch.waitCaps(t, tv.Vat, limit+2, "both connections")

	readers[0].Release()
	watch.waitCaps(t, tv.Vat, limit+1, "after releasing a reader")
	readers[0], err = shA.Reader(bg)
	require.NoError(t, err, "a released reader frees its slot")
	_, err = shA.Reader(bg)
	isCode(t, err, sharevat.ErrTooLarge, "the freed slot is taken again")

	rdB.Release()
	shB.Release()
	require.NoError(t, connA.Close())
	require.NoError(t, connB.Close())
	watch.waitCaps(t, tv.Vat, 0, "after both connections closed")
}

// TestConnCapabilityUnlimited: a negative MaxConnCapabilities lifts the
// limit rather than setting a tiny one.
func TestConnCapabilityUnlimited(t *testing.T) {
	tv := MustServeConfig(t, nil, func(c *vat.Config) { c.MaxConnCapabilities = -1 })
	sh := tv.MustRestore(t, tv.MustCreate(t, "unlimited"))
	for i := range 20 {
		rd, err := sh.Reader(bg)
		require.NoError(t, err, "reader %d", i+1)
		t.Cleanup(rd.Release)
	}
}

// TestConnCapabilityLimitCreate: createShare at the limit answers
// tooLarge before it stores anything, so no share is created that its
// caller could not be handed.
func TestConnCapabilityLimitCreate(t *testing.T) {
	const limit = 3
	tv := MustServeConfig(t, nil, func(c *vat.Config) { c.MaxConnCapabilities = limit })
	admin, err := tv.MustDial(t).RedeemAdmin(bg, tv.Admin)
	require.NoError(t, err)
	t.Cleanup(admin.Release)
	for i := range limit - 1 { // the Admin is the first of limit
		sh, _, err := admin.CreateShare(bg, sharevat.MetaPatch{})
		require.NoError(t, err, "share %d", i+1)
		t.Cleanup(sh.Release)
	}
	_, _, err = admin.CreateShare(bg, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrTooLarge, "createShare over the limit")
	shares, _, err := admin.List(bg, sharevat.ListFilter{})
	require.NoError(t, err)
	require.Len(t, shares, limit-1, "the refused createShare stored nothing")
}
