package page_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/proctest"
)

// The browser tests run the real `sharevat serve` binary, built once.
var (
	buildOnce sync.Once
	binary    string
	binDir    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// sharevatBinary builds cmd/sharevat once (no race detector: the browser
// is the load here, and the vat's races are the rpc and vat tests' job).
func sharevatBinary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() { binary, binDir, buildErr = proctest.Build("../../cmd/sharevat", false) })
	require.NoError(tb, buildErr)
	return binary
}

// vatProc is a running `sharevat serve` and what the tests need of it.
type vatProc struct {
	srv   *proctest.Server
	data  string
	Base  string // http://127.0.0.1:port
	RPC   string // ws://127.0.0.1:port/rpc
	Admin string // the admin token
}

// startVat runs serve on a free loopback port (or on addr, to restart a
// vat where the page expects it) with data in dir.
func startVat(tb testing.TB, dir, addr string) *vatProc {
	tb.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	srv, err := proctest.Start(tb, sharevatBinary(tb), nil, "serve", "--listen", addr, "--data", dir, "--log-level", "debug")
	require.NoError(tb, err)
	admin, err := os.ReadFile(filepath.Join(dir, "admin.token"))
	require.NoError(tb, err)
	v := &vatProc{srv: srv, data: dir, RPC: srv.URL, Admin: strings.TrimSpace(string(admin))}
	v.Base = "http" + strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws"), "/rpc")
	require.True(tb, v.servesPage(tb), "serve answers the share page at /s/ and Cap'n Web at /capnweb")
	return v
}

// servesPage reports whether the vat answers the page at /s/ and has a
// /capnweb door (a plain GET there is refused, not 404).
func (v *vatProc) servesPage(tb testing.TB) bool {
	tb.Helper()
	get := func(p string) (int, string) {
		resp, err := http.Get(v.Base + p)
		require.NoError(tb, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return resp.StatusCode, string(b)
	}
	code, page := get("/s/")
	capCode, _ := get("/capnweb")
	return code == 200 && strings.Contains(page, `src="app.js"`) && capCode != 404
}

// addr is the vat's host:port.
func (v *vatProc) addr() string { return strings.TrimPrefix(v.Base, "http://") }

// stop shuts the vat down (SIGTERM) and waits for it.
func (v *vatProc) stop(tb testing.TB) { v.srv.Stop(tb) }

// owner is a share's owner capability over /rpc, for the test to write
// with.
type owner struct {
	conn  *client.Conn
	share *client.Share
	app   *client.Appender
	token string // the owner token, to redeem again after a restart
	n     int    // batches sent
}

// createShare creates a share with meta over /rpc and returns its owner.
func createShare(tb testing.TB, v *vatProc, meta sharevat.MetaPatch) *owner {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, v.RPC, nil)
	require.NoError(tb, err)
	tb.Cleanup(func() { conn.Close() })
	admin, err := conn.RedeemAdmin(ctx, v.Admin)
	require.NoError(tb, err)
	defer admin.Release()
	sh, m, err := admin.CreateShare(ctx, meta)
	require.NoError(tb, err)
	sh.Release()
	return redeemOwner(tb, v, m.Token)
}

// redeemOwner redeems an owner token on a new connection (after a vat
// restart, say).
func redeemOwner(tb testing.TB, v *vatProc, token string) *owner {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, v.RPC, nil)
	require.NoError(tb, err)
	tb.Cleanup(func() { conn.Close() })
	sh, err := conn.Redeem(ctx, token)
	require.NoError(tb, err)
	app, err := sh.Appender(ctx)
	require.NoError(tb, err)
	return &owner{conn: conn, share: sh, app: app, token: token}
}

// appendOps appends ops in batches of at most 500 and fails tb unless
// every op is applied.
func (o *owner) appendOps(tb testing.TB, ops []sharevat.Op) sharevat.Cursor {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var head sharevat.Cursor
	for len(ops) > 0 {
		n := min(len(ops), 500)
		o.n++
		ack, err := o.app.Append(ctx, &sharevat.Batch{BatchID: fmt.Sprintf("b%d", o.n), Epoch: o.share.Access.Epoch, Ops: ops[:n]})
		require.NoError(tb, err)
		require.Equal(tb, n, int(ack.Applied), "every op applied: %+v", ack.Results)
		head, ops = ack.Head, ops[n:]
	}
	return head
}

// readLink mints a read-only grant and returns its link and grant id.
func (o *owner) readLink(tb testing.TB, v *vatProc) (string, sharevat.GrantID) {
	tb.Helper()
	m, err := o.share.Grant(context.Background(), sharevat.ScopeRead, time.Hour, "share page")
	require.NoError(tb, err)
	return v.Base + "/s/#" + m.Token, m.GrantID
}
