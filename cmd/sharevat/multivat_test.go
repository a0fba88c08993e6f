package main_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// crossVatBound is how soon a revoke through one vat must end a live
// subscription on another.
const crossVatBound = 100 * time.Millisecond

// pgVat is one `sharevat serve --store <dsn>` of a multi-vat test, on a
// fixed address so that it comes back there after a kill.
type pgVat struct {
	data, addr string
	srv        *server
}

// pgVats is several vats on one database.
type pgVats struct {
	dsn, pepper string
	vats        []*pgVat
}

// startPGVats starts n vats on a new database: the first creates the
// pepper and the admin token in its data directory, the others are
// given its pepper file.
func startPGVats(t *testing.T, n int) *pgVats {
	t.Helper()
	pv := &pgVats{dsn: pgtest.DB(t)}
	for i := range n {
		v := &pgVat{data: t.TempDir(), addr: obFreeAddr(t)}
		if i == 0 {
			pv.pepper = filepath.Join(v.data, "pepper.key")
		}
		pv.vats = append(pv.vats, v)
		pv.start(t, i)
	}
	return pv
}

// start starts vat i (again), retrying while its port is taken.
func (pv *pgVats) start(t *testing.T, i int) {
	t.Helper()
	v := pv.vats[i]
	for attempt := 0; ; attempt++ {
		s, err := proctest.Start(t, binary, nil, "serve", "--listen", v.addr, "--data", v.data,
			"--store", pv.dsn, "--pepper-file", pv.pepper, "--log-level", "warn")
		if err == nil {
			v.srv = s
			return
		}
		if attempt == 20 || !strings.Contains(s.Log.String(), "address already in use") {
			t.Fatalf("vat %d did not start on %s: %v\n%s", i, v.addr, err, s.Log)
		}
	}
}

func (pv *pgVats) url(i int) string { return pv.vats[i].srv.URL }

// adminFile is the admin token the first vat minted.
func (pv *pgVats) adminFile() string { return filepath.Join(pv.vats[0].data, "admin.token") }

// TestMultiVat: three real vats on one PostgreSQL database. Four
// outbox clients, spread over the vats, append while the vats are
// SIGKILLed and restarted in turn; a `sharevat tail` follows the share on
// vat C throughout. Invariants: every acked op is in the log exactly
// once, each client's ops in its order, cursors 1..n without a gap; the
// tail printed every op once, in cursor order. Then a revoke through
// vat A ends a live subscription on vat B within 100 ms, and B refuses
// that grant's next call; a revoke of the tail's grant through A ends
// the tail on C with exit code 3.
func TestMultiVat(t *testing.T) {
	const writers, rounds = 4, 15
	pv := startPGVats(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 180*time.Second)
	defer cancel()
	owner := createShareWith(t, pv.url(0), pv.adminFile())
	tailGrant := grantVia(t, pv.url(1), owner, "tail")
	tl := startTailEnv(t, pv.url(2), tailGrant.Token)

	progress := make(chan struct{}, 1)
	var ws []*obWriter
	for i := range writers {
		ws = append(ws, obStartWriters(t, 1, pv.url(i%3), owner, progress)...)
		ws[i].name = fmt.Sprintf("w%d", i)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() { w.run(ctx, stop) })
	}
	for r := range rounds {
		obAwaitProgress(t, progress, r)
		time.Sleep(rand.N(40 * time.Millisecond)) // varies when the kill lands; not a synchronisation
		pv.vats[r%3].srv.Kill()
		pv.start(t, r%3)
	}
	close(stop)
	wg.Wait()
	log := readAll(t, pv.url(0), owner)
	obCheckKillLoop(t, ws, log)
	for i, e := range log {
		require.Equal(t, sharevat.Cursor(i+1), e.Cursor, "cursors 1..n without a gap")
	}
	tl.waitLines(t, len(log))
	for i, l := range tl.seen {
		require.Equal(t, log[i].OpID, l.OpID, "the tail on vat C printed op %d once, in cursor order", i+1)
		require.Equal(t, uint64(log[i].Cursor), l.Cursor)
	}
	t.Logf("%d ops through 3 vats across %d SIGKILL/restarts; the tail on vat C saw each once, in order", len(log), rounds)
	liveTailAcrossVats(t, pv, owner, tl, len(log))

	revokeAcrossVats(t, pv, owner)
	require.NoError(t, revokeVia(t, pv.url(0), owner, tailGrant.GrantID))
	assert.Equal(t, 3, tl.exitCode(t), "the tail on vat C ends, revoked, when its grant is revoked through vat A")
}

// liveTailAcrossVats: an op appended through vat A reaches the tail on
// vat C, which has caught up, well before the subscriptions' safety-net
// wake-up (5 s): it came by the database's notice.
func liveTailAcrossVats(t *testing.T, pv *pgVats, owner string, tl *tailProc, have int) {
	t.Helper()
	onA, err := redeemAt(t, pv.url(0), owner).Appender(context.Background())
	require.NoError(t, err)
	var took []time.Duration
	for i := range 5 {
		start := time.Now()
		_, err := onA.Append(context.Background(), &sharevat.Batch{BatchID: fmt.Sprint("live", i), Epoch: 1,
			Ops: []sharevat.Op{{OpID: fmt.Sprint("live-", i), Kind: sharevat.KindEvent, Body: []byte(`{}`)}}})
		require.NoError(t, err)
		tl.waitLines(t, have+i+1)
		took = append(took, time.Since(start))
		require.Equal(t, fmt.Sprint("live-", i), tl.seen[have+i].OpID)
	}
	t.Logf("append through vat A to a line printed by the tail on vat C: %v", took)
	assert.Less(t, slices.Max(took), time.Second, "live across vats, by notice")
}

// revokeAcrossVats: a subscription on vat B whose grant is revoked
// through vat A ends with revoked within crossVatBound of the revoke
// being made (vat A answering the call, which it does once the revoke
// is committed), and B refuses the grant's next call.
func revokeAcrossVats(t *testing.T, pv *pgVats, owner string) {
	t.Helper()
	ctx := context.Background()
	m := grantVia(t, pv.url(0), owner, "B")
	onB := redeemAt(t, pv.url(1), m.Token)
	rd, err := onB.Reader(ctx)
	require.NoError(t, err)
	sub, err := rd.Subscribe(ctx, 0, func([]sharevat.Entry) error { return nil })
	require.NoError(t, err)
	defer sub.Close()
	onA := redeemAt(t, pv.url(0), owner)
	start := time.Now()
	require.NoError(t, onA.Revoke(ctx, m.GrantID))
	made := time.Now() // the revoke is committed: vat A answered
	var ended time.Time
	select {
	case <-sub.Done():
		ended = time.Now()
	case <-time.After(10 * time.Second):
		t.Fatalf("the subscription on vat B did not end; vat B's log:\n%s", pv.vats[1].srv.Log)
	}
	require.ErrorIs(t, sub.Err(), sharevat.ErrRevoked)
	lag := max(ended.Sub(made), 0)
	t.Logf("a revoke through vat A ended a subscription on vat B %v after vat A answered the revoke (%v after the call began; bound %v)",
		lag, ended.Sub(start), crossVatBound)
	assert.Less(t, lag, crossVatBound, "revocation across vats within the bound the issue sets")
	_, _, err = onB.Fetch(ctx)
	require.ErrorIs(t, err, sharevat.ErrRevoked, "vat B refuses the revoked grant's next call")
}

// createShareWith creates a share through url with the admin token in
// file and returns its owner token.
func createShareWith(t *testing.T, url, file string) string {
	t.Helper()
	out, stderr, code := cli(t, "", nil, "create", "--server", url, "--token-file", file, "--title", "multivat")
	require.Equal(t, 0, code, stderr)
	return firstLine(out)
}

// redeemAt redeems token on a new connection to url, closed at cleanup.
func redeemAt(t *testing.T, url, token string) *client.Share {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	sh, err := conn.Redeem(ctx, token)
	require.NoError(t, err)
	return sh
}

// grantVia mints a read grant of the owner's share through url.
func grantVia(t *testing.T, url, owner, label string) sharevat.Minted {
	t.Helper()
	m, err := redeemAt(t, url, owner).Grant(context.Background(), sharevat.ScopeRead, 0, label)
	require.NoError(t, err)
	return m
}

// revokeVia revokes grant id through url.
func revokeVia(t *testing.T, url, owner string, id sharevat.GrantID) error {
	t.Helper()
	return redeemAt(t, url, owner).Revoke(context.Background(), id)
}

// startTailEnv is startTail without the race detector's pause at exit.
func startTailEnv(t *testing.T, url, token string) *tailProc {
	t.Helper()
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	return startTail(t, url, token)
}
