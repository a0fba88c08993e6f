package vat_test

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/sturdyref"
)

// errStoreDown is what store/bolt answers for a disk it cannot write
// (EUnavailable under its own wrapping); errIO a failure no store
// classifies (EInternal at the boundary).
var (
	errStoreDown = fmt.Errorf("bolt: append: %w", sharevat.Errorf(sharevat.EUnavailable, "injected: the store cannot be reached"))
	errIO        = errors.New("injected: read /data/sharevat.db: input/output error")
)

// TestRedeemDuringStoreOutageBolt: while the store fails, redeeming a
// valid token answers unavailable, never unauthorized, whatever the
// store's error; a live capability's append and read answer what the
// store said (unavailable, or internal for an unclassified failure); once the store is back, the same token redeems and appends.
func TestRedeemDuringStoreOutageBolt(t *testing.T) {
	ds := &vattest.DownStore{}
	tv := MustServe(t, sharevat.Limits{}, ds.Wrap)
	owner := tv.MustCreate(t, "outage")
	live := tv.MustRestore(t, owner)
	// A live capability's calls pass the store's answer on: unavailable
	// stays unavailable; an unclassified failure is internal (logged),
	// never a verdict on the token.
	for cause, onLive := range map[error]sharevat.Code{errStoreDown: sharevat.EUnavailable, errIO: sharevat.EInternal} {
		ds.Fail(cause)
		_, err := tv.MustDial(t).Redeem(bg, owner)
		isUnavailableRedeem(t, err, "a valid token's redeem during the outage ("+cause.Error()+")")
		appendAndRead(t, live, "during", onLive, "a live capability during the outage ("+cause.Error()+")")
	}
	ds.Up()
	sh, err := tv.MustDial(t).Redeem(bg, owner)
	require.NoError(t, err, "the same token after the outage")
	defer sh.Release()
	appendAndRead(t, sh, "after", "", "after the outage")
	assert.NotContains(t, tv.Log.String(), strings.SplitN(owner, "_", 3)[2], "the token's secret is never logged")
}

// TestRedeemDuringStoreOutagePG: a real PostgreSQL is stopped under two
// vats. A redeem of a valid token answers unavailable on the vat that
// has the grant cached and on the one that must load it, and so does the
// admin token's; a live capability's append and read answer
// unavailable. After PostgreSQL is started again every one of them
// works; a wrong token is still unauthorized.
func TestRedeemDuringStoreOutagePG(t *testing.T) {
	cl := pgtest.Own(t)
	pepper, err := sturdyref.NewPepper(rand.Reader)
	require.NoError(t, err)
	a, b := mustPGVat(t, cl.DSN(), pepper), mustPGVat(t, cl.DSN(), pepper)
	m, err := a.Vat.MintAdminToken(bg)
	require.NoError(t, err)
	a.Admin, b.Admin = m.Token, m.Token
	owner := a.MustCreate(t, "outage")
	live := a.MustRestore(t, owner)

	cl.Stop(t)
	for name, tv := range map[string]*testVat{"the vat that made it": a, "another vat": b} {
		_, err := tv.MustDial(t).Redeem(bg, owner)
		isUnavailableRedeem(t, err, "a valid token's redeem on "+name+" while PostgreSQL is down")
	}
	_, err = b.MustDial(t).RedeemAdmin(bg, b.Admin)
	isUnavailableRedeem(t, err, "the admin token's redeem on a vat that never saw it, while PostgreSQL is down")
	appendAndRead(t, live, "during", sharevat.EUnavailable, "a live capability while PostgreSQL is down")

	cl.Start(t)
	for name, tv := range map[string]*testVat{"the vat that made it": a, "another vat": b} {
		sh := redeemAfterRestart(t, tv, owner)
		appendAndRead(t, sh, "after-"+strings.ReplaceAll(name, " ", "-"), "", "on "+name+" after PostgreSQL is back")
	}
	_, err = b.MustDial(t).Redeem(bg, owner[:len(owner)-4]+flip(owner[len(owner)-4:]))
	isCode(t, err, sharevat.ErrUnauthorized, "a wrong secret after the outage")
}

// redeemAfterRestart redeems token on tv. The store's first call after
// PostgreSQL came back may still meet a connection the restart cut
// (unavailable, never unauthorized): it is tried a few times.
func redeemAfterRestart(t *testing.T, tv *testVat, token string) *client.Share {
	t.Helper()
	var err error
	for range 5 {
		var sh *client.Share
		if sh, err = tv.MustDial(t).Redeem(bg, token); err == nil {
			t.Cleanup(sh.Release)
			return sh
		}
		isUnavailableRedeem(t, err, "a redeem just after PostgreSQL came back")
	}
	require.NoError(t, err, "a redeem after PostgreSQL came back")
	return nil
}

// isUnavailableRedeem asserts that err is the answer to a redeem the vat
// could not check: unavailable, not unauthorized.
func isUnavailableRedeem(t *testing.T, err error, what string) {
	t.Helper()
	require.Error(t, err, what)
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "%s: got %v", what, err)
	assert.NotContains(t, err.Error(), "invalid or expired", what)
	assert.False(t, client.IsPermanent(err), "%s: a client must retry it", what)
}

// appendAndRead appends one op through sh and reads the log: both answer
// the code want ("" for success).
func appendAndRead(t *testing.T, sh *client.Share, id string, want sharevat.Code, what string) {
	t.Helper()
	app, err := sh.Appender(bg)
	require.NoError(t, err, what)
	defer app.Release()
	_, err = app.Append(bg, &sharevat.Batch{BatchID: "b-" + id, Epoch: sh.Access.Epoch,
		Ops: []sharevat.Op{op("op-"+id, "event", "", `{}`)}})
	assert.Equal(t, want, sharevat.ErrorCode(err), "%s: append: %v", what, err)
	rd, err := sh.Reader(bg)
	require.NoError(t, err, what)
	defer rd.Release()
	_, _, err = rd.Read(bg, 0, 10)
	assert.Equal(t, want, sharevat.ErrorCode(err), "%s: read: %v", what, err)
}
