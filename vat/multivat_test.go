package vat_test

import (
	"context"
	"crypto/rand"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/pg"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/vat"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// crossVat is how soon a revoke through one vat must end a capability on
// another. Under -race on a loaded two-core machine a notice
// can take longer than on an idle one; the real-process test in
// cmd/sharevat asserts the bound of 100 ms itself.
const crossVat = time.Second

// mustPGVats starts n vats on one new PostgreSQL database, sharing one
// pepper, each with its own store and loopback server; the first one's
// admin token is every vat's.
func mustPGVats(t *testing.T, n int) ([]*testVat, string) {
	t.Helper()
	dsn := pgtest.DB(t)
	pepper, err := sturdyref.NewPepper(rand.Reader)
	require.NoError(t, err)
	var vats []*testVat
	for range n {
		vats = append(vats, mustPGVat(t, dsn, pepper))
	}
	m, err := vats[0].Vat.MintAdminToken(bg)
	require.NoError(t, err)
	for _, tv := range vats {
		tv.Admin = m.Token
	}
	return vats, dsn
}

// mustPGVat serves one vat on dsn at /rpc of a loopback server.
func mustPGVat(t *testing.T, dsn string, pepper []byte) *testVat {
	t.Helper()
	st, err := pg.Open(bg, dsn, pg.Options{})
	require.NoError(t, err)
	ver, err := sturdyref.NewVerifier(pepper)
	require.NoError(t, err)
	v, err := vat.New(vat.Config{Store: st, Verifier: ver})
	require.NoError(t, err)
	h := rpc.NewHandler(rpc.HandlerOptions{
		Bootstrap: func(p rpc.Peer) capnp.Client { return v.BootstrapMetered(p.RemoteAddr, p.Meter) }})
	srv := httptest.NewServer(h)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(bg, 10*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.Close()
		assert.NoError(t, v.Close(ctx))
		st.Close()
	})
	return &vattest.Server{URL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/rpc", Vat: v, Store: st}
}

// TestMultiVatTailAndRevoke: a subscriber on vat B sees every op
// appended through vat A, once each and in order; a revoke through A
// ends B's subscription with revoked, and B's next call is refused.
func TestMultiVatTailAndRevoke(t *testing.T) {
	vats, _ := mustPGVats(t, 2)
	a := vats[0].MustRestore(t, vats[0].MustCreate(t, "two vats"))
	bm := mustGrant(t, a, sharevat.ScopeRead, 0, "B")
	onB := vats[1].MustRestore(t, bm.Token)
	sub, got := subscribeAs(t, vats[1], bm.Token)
	appendN(t, a, "a", 40, 4, `{}`)
	got.waitFor(t, 40)
	assert.Equal(t, dense(0, 40), got.got(), "B saw 1..40 once each, in order")

	start := time.Now()
	require.NoError(t, a.Revoke(bg, bm.GrantID))
	took := waitDone(t, sub, start, "B's subscription")
	isCode(t, sub.Err(), sharevat.ErrRevoked, "B's subscription's end")
	t.Logf("a revoke through vat A ended a subscription on vat B in %v", took)
	assert.Less(t, took, crossVat)
	_, _, err := onB.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "B's next call on vat B")
}

// TestMultiVatBumpAndDelete: an epoch bump through A fences the old
// owner capability on B; a delete through A ends the new owner's
// subscription on B.
func TestMultiVatBumpAndDelete(t *testing.T) {
	vats, _ := mustPGVats(t, 2)
	owner := vats[0].MustCreate(t, "bump")
	a := vats[0].MustRestore(t, owner)
	sub, _ := subscribeAs(t, vats[1], owner)
	start := time.Now()
	m, _, err := a.BumpEpoch(bg)
	require.NoError(t, err)
	t.Logf("an epoch bump through A ended a subscription on B in %v", waitDone(t, sub, start, "old owner's subscription"))
	isCode(t, sub.Err(), sharevat.ErrRevoked, "the fenced subscription's end")

	a2 := vats[0].MustRestore(t, m.Token)
	sub2, _ := subscribeAs(t, vats[1], m.Token)
	onB := vats[1].MustRestore(t, m.Token)
	start = time.Now()
	require.NoError(t, a2.Delete(bg))
	took := waitDone(t, sub2, start, "new owner's subscription")
	isCode(t, sub2.Err(), sharevat.ErrRevoked, "the deleted share's subscription's end")
	assert.Less(t, took, crossVat)
	_, _, err = onB.Fetch(bg)
	isCode(t, err, sharevat.ErrRevoked, "a call on B after the delete")
}

// TestMultiVatListenerDrop: when the server ends the vats' listener
// connections, a revoke committed meanwhile sends B no notice; B notices
// the drop, checks each call against the store until it listens again,
// and then reads every cached grant again: B refuses the revoked grant
// soon after, and B's subscription still sees A's later appends.
func TestMultiVatListenerDrop(t *testing.T) {
	vats, dsn := mustPGVats(t, 2)
	a := vats[0].MustRestore(t, vats[0].MustCreate(t, "drop"))
	bm := mustGrant(t, a, sharevat.ScopeRead, 0, "B")
	cm := mustGrant(t, a, sharevat.ScopeRead, 0, "C")
	onB := vats[1].MustRestore(t, bm.Token)
	_, got := subscribeAs(t, vats[1], cm.Token)
	dropListeners(t, dsn)
	require.NoError(t, a.Revoke(bg, bm.GrantID))
	start := time.Now()
	var err error
	for time.Since(start) < crossVat { // until B's listener has noticed the drop and read its grants again
		if _, _, err = onB.Fetch(bg); err != nil {
			break
		}
	}
	isCode(t, err, sharevat.ErrRevoked, "B's call after a revoke while its listener was down")
	t.Logf("B refused the grant revoked while its listener was down after %v", time.Since(start))
	appendN(t, a, "a", 10, 1, `{}`)
	got.waitFor(t, 10)
	assert.Equal(t, dense(0, 10), got.got(), "the subscription on B saw every op once")
}

// dropListeners ends every listening connection of the database (the
// vats' change feeds); they reconnect by themselves.
func dropListeners(t *testing.T, dsn string) {
	t.Helper()
	conn, err := pgx.Connect(bg, dsn)
	require.NoError(t, err)
	defer conn.Close(bg)
	var n int
	require.NoError(t, conn.QueryRow(bg, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE query LIKE 'LISTEN%' AND datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n))
	require.Positive(t, n, "a listener was running")
}

// TestMultiVatLostNotice: an op committed without any notice (written
// straight into the database, as if the appending vat died between its
// commit and its notice) still reaches a subscription on vat B, by the
// vat's periodic check of the heads, within its period.
func TestMultiVatLostNotice(t *testing.T) {
	vats, dsn := mustPGVats(t, 1)
	owner := vats[0].MustCreate(t, "lost notice")
	a := vats[0].MustRestore(t, owner)
	appendN(t, a, "a", 1, 1, `{}`)
	_, got := subscribeAs(t, vats[0], owner)
	got.waitFor(t, 1)
	conn, err := pgx.Connect(bg, dsn)
	require.NoError(t, err)
	defer conn.Close(bg)
	d := apply.Digest(&sharevat.Op{Kind: "event", Body: []byte(`{}`)})
	start := time.Now()
	_, err = conn.Exec(bg, `WITH s AS (SELECT id FROM shares WHERE title = 'lost notice'),
		l AS (INSERT INTO log SELECT id, 2, 'silent', 'silent', 0, 'event', '', '{}', false, $1, $2 FROM s),
		o AS (INSERT INTO ops SELECT id, 'silent', 2, $2 FROM s)
		UPDATE shares SET head = 2 FROM s WHERE shares.id = s.id`, time.Now().UnixNano(), d[:])
	require.NoError(t, err)
	got.waitFor(t, 2)
	t.Logf("an op committed without a notice reached the subscription after %v", time.Since(start))
	assert.Equal(t, dense(0, 2), got.got())
}
