package vat_test

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/sturdyref"
)

// TestRedeemFailuresLookTheSame: every way a redeem can fail gives the
// same code and the same message, and never echoes the token.
func TestRedeemFailuresLookTheSame(t *testing.T) { onEachStore(t, testRedeemFailuresLookTheSame) }

func testRedeemFailuresLookTheSame(t *testing.T, on storeKind) {
	ctx := context.Background()
	tv := on.serve(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "s")
	unknown, err := sturdyref.New(rand.Reader)
	require.NoError(t, err)
	wrongSecret := owner[:len(owner)-4] + flip(owner[len(owner)-4:])
	conn := tv.MustDial(t)

	var msgs []string
	for name, try := range map[string]func() error{
		"empty":           func() error { _, err := conn.Redeem(ctx, ""); return err },
		"garbage":         func() error { _, err := conn.Redeem(ctx, "hello world"); return err },
		"prefix only":     func() error { _, err := conn.Redeem(ctx, "svt1_"); return err },
		"unknown grant":   func() error { _, err := conn.Redeem(ctx, unknown.Reveal()); return err },
		"wrong secret":    func() error { _, err := conn.Redeem(ctx, wrongSecret); return err },
		"share as admin":  func() error { _, err := conn.RedeemAdmin(ctx, owner); return err },
		"admin bad token": func() error { _, err := conn.RedeemAdmin(ctx, unknown.Reveal()); return err },
		"huge":            func() error { _, err := conn.Redeem(ctx, strings.Repeat("a", 1<<20)); return err },
	} {
		err := try()
		require.Error(t, err, name)
		assert.True(t, errors.Is(err, sharevat.ErrUnauthorized), "%s: got %v", name, err)
		assert.NotContains(t, err.Error(), "svt1_", name)
		msgs = append(msgs, err.Error())
	}
	for _, m := range msgs {
		assert.Equal(t, msgs[0], m, "every redeem failure reads the same")
	}
	// The admin token redeemed as a share token is told so: its secret is
	// verified first, so only its holder hears it; with a wrong secret it
	// is one more failure like the others.
	_, err = conn.Redeem(ctx, tv.Admin)
	assert.True(t, sharevat.IsAdminAsShare(err), "admin as share: got %v", err)
	assert.ErrorIs(t, err, sharevat.ErrUnauthorized)
	_, err = conn.Redeem(ctx, tv.Admin[:len(tv.Admin)-4]+flip(tv.Admin[len(tv.Admin)-4:]))
	assert.Equal(t, msgs[0], err.Error(), "the admin token with a wrong secret reads like every failure")
	_, err = conn.Redeem(ctx, owner)
	assert.NoError(t, err, "the connection still serves after failures")
}

// TestRedeemTrailingSpace: the vat itself refuses a token with a trailing
// space, with the one redeem failure; the client trims it before sending,
// so this goes to Vault.restore raw.
func TestRedeemTrailingSpace(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	owner := tv.MustCreate(t, "s")
	vault := mustRawVault(t, tv)
	fut, release := vault.Restore(bg, func(p schema.Vault_restore_Params) error { return p.SetToken(owner + " ") })
	defer release()
	_, err := fut.Struct()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "unauthorized: invalid or expired token")
	assert.NotContains(t, err.Error(), "svt1_")
	_, err = tv.MustDial(t).Redeem(bg, owner+" ")
	assert.NoError(t, err, "the client trims the token")
}

// flip changes every character of s to another valid base64url one.
func flip(s string) string {
	b := []byte(s)
	for i := range b {
		if b[i] == 'A' {
			b[i] = 'B'
		} else {
			b[i] = 'A'
		}
	}
	return string(b)
}

func TestAdminCreateListAndOpen(t *testing.T) { onEachStore(t, testAdminCreateListAndOpen) }

func testAdminCreateListAndOpen(t *testing.T, on storeKind) {
	ctx := context.Background()
	tv := on.serve(t, sharevat.Limits{}, nil)
	tv.MustCreate(t, "one")
	tv.MustCreate(t, "two")
	admin, err := tv.MustDial(t).RedeemAdmin(ctx, tv.Admin)
	require.NoError(t, err)
	shares, _, err := admin.List(ctx, sharevat.ListFilter{})
	require.NoError(t, err)
	var titles []string
	for _, s := range shares {
		titles = append(titles, s.Meta.Title)
		assert.Equal(t, sharevat.StatusIdle, s.Meta.Status)
		assert.False(t, s.Meta.CreatedAt.IsZero())
	}
	assert.ElementsMatch(t, []string{"one", "two"}, titles)

	_, err = tv.MustDial(t).OpenAdmin(ctx)
	assert.True(t, errors.Is(err, sharevat.ErrPermissionDenied), "a closed server refuses openAdmin: %v", err)
}

func TestShareInfoAndUpdate(t *testing.T) { onEachStore(t, testShareInfoAndUpdate) }

func testShareInfoAndUpdate(t *testing.T, on storeKind) {
	ctx := context.Background()
	tv := on.serve(t, sharevat.Limits{}, nil)
	sh := tv.MustRestore(t, tv.MustCreate(t, "before"))
	assert.Equal(t, sharevat.ScopeOwner, sh.Access.Scope)
	assert.Equal(t, "before", sh.Info.Meta.Title)

	title, dir := "after", "/src/app"
	got, err := sh.Update(ctx, sharevat.MetaPatch{Title: &title, Directory: &dir, Status: sharevat.StatusBusy})
	require.NoError(t, err)
	assert.Equal(t, "after", got.Meta.Title)
	assert.Equal(t, "/src/app", got.Meta.Directory)
	assert.Equal(t, sharevat.StatusBusy, got.Meta.Status)

	version := "1.2"
	got, err = sh.Update(ctx, sharevat.MetaPatch{Version: &version})
	require.NoError(t, err)
	assert.Equal(t, "after", got.Meta.Title, "unset fields are kept")
	assert.Equal(t, "1.2", got.Meta.Version)

	empty := ""
	got, err = sh.Update(ctx, sharevat.MetaPatch{Directory: &empty})
	require.NoError(t, err)
	assert.Equal(t, "", got.Meta.Directory, "an empty field clears it")
	assert.Equal(t, "after", got.Meta.Title)
	assert.True(t, !got.Meta.UpdatedAt.Before(got.Meta.CreatedAt))

	long := strings.Repeat("x", sharevat.MaxMetaField+1)
	_, err = sh.Update(ctx, sharevat.MetaPatch{Title: &long})
	assert.True(t, errors.Is(err, sharevat.ErrTooLarge), "got %v", err)

	info, acc, err := sh.Fetch(ctx)
	require.NoError(t, err)
	assert.Equal(t, "after", info.Meta.Title)
	assert.Equal(t, sh.Access.GrantID, acc.GrantID)
}

// panicStore wraps the real store and panics in the first Append.
type panicStore struct {
	sharevat.Store
	fired atomic.Bool
}

func (p *panicStore) Append(ctx context.Context, req sharevat.AppendRequest) (sharevat.Ack, error) {
	if p.fired.CompareAndSwap(false, true) {
		panic("injected")
	}
	return p.Store.Append(ctx, req)
}

// TestPanicInHandlerIsContained: a panic in one call answers that call
// with "internal" and the server keeps serving it and everyone else.
func TestPanicInHandlerIsContained(t *testing.T) {
	ctx := context.Background()
	tv := MustServe(t, sharevat.Limits{}, func(s sharevat.Store) sharevat.Store { return &panicStore{Store: s} })
	sh := tv.MustRestore(t, tv.MustCreate(t, "s"))
	app, err := sh.Appender(ctx)
	require.NoError(t, err)
	b := &sharevat.Batch{BatchID: "b", Epoch: 1, Ops: []sharevat.Op{op("a", "event", "", `{}`)}}
	_, err = app.Append(ctx, b)
	assert.Equal(t, sharevat.EInternal, sharevat.ErrorCode(err), "got %v", err)
	assert.Equal(t, "internal: internal error", err.Error(), "no internal detail leaks")
	ack, err := app.Append(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, 1, ack.Applied)
}

func TestPing(t *testing.T) {
	tv := MustServe(t, sharevat.Limits{}, nil)
	require.NoError(t, tv.MustDial(t).Ping(context.Background()))
}
