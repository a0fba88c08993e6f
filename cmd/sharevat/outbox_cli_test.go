package main_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/sturdyref"

	"github.com/sharevat/sharevat/internal/servertest"
)

const obThreeOps = `{"op_id":"a","kind":"event","body":{"n":1}}
{"kind":"event","body":{"n":2}}
{"op_id":"c","kind":"event","body":{"n":3}}
`

// obOutboxPath is where the CLI keeps token's outbox under state.
func obOutboxPath(t *testing.T, state, token string) string {
	t.Helper()
	tok, err := sturdyref.Parse(token)
	require.NoError(t, err)
	return filepath.Join(state, "outbox-"+string(tok.GrantID)+".db")
}

// TestAppendThenFlushWhenServerIsBack: with the server down, append stores
// the ops, gives up at its timeout (exit 1) and says how to finish; once
// the server is back, flush sends them (exit 0), the log holds each once,
// and a second flush has nothing to do.
func TestAppendThenFlushWhenServerIsBack(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	srv.Kill()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + t.TempDir(), obNoExitSleep}
	_, stderr, code := cli(t, obThreeOps, env, "append", "--timeout", "300ms")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "3 op(s) stay pending")
	assert.Contains(t, stderr, "sharevat flush")
	assert.NotContains(t, stderr, owner)

	srv = startServer(t, data)
	env = append(env, "SHAREVAT_URL="+srv.URL)
	out, stderr, code := cli(t, "", env, "flush")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "applied 3, duplicate 0, rejected 0; head is 3")
	out, _, code = cli(t, "", env, "flush")
	assert.Equal(t, 0, code)
	assert.Contains(t, out, "nothing pending")
	var bodies []string
	for _, e := range readAll(t, srv.URL, owner) {
		bodies = append(bodies, string(e.Body))
	}
	assert.Equal(t, []string{`{"n":1}`, `{"n":2}`, `{"n":3}`}, bodies)
}

// TestAppendWaitsForABusyOutbox: while another process holds the token's
// outbox, append waits --lock-wait, then fails (exit 1) storing nothing.
func TestAppendWaitsForABusyOutbox(t *testing.T) {
	srv := startServer(t, t.TempDir())
	owner := createShare(t, srv)
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + state, obNoExitSleep}
	ob, err := client.OpenOutbox(obOutboxPath(t, state, owner), client.OutboxOptions{})
	require.NoError(t, err)
	_, stderr, code := cli(t, obThreeOps, env, "append", "--lock-wait", "200ms")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "in use by another sharevat process")
	assert.Contains(t, stderr, "nothing was stored")
	st, err := ob.Status()
	require.NoError(t, err)
	assert.Zero(t, st.Pending)
	require.NoError(t, ob.Close())
	_, stderr, code = cli(t, obThreeOps, env, "append")
	assert.Equal(t, 0, code, stderr)
}

// TestAppendStateDirectory: without --state or SHAREVAT_STATE the outbox
// goes under $XDG_STATE_HOME/sharevat, else ~/.local/state/sharevat; the
// directory is 0700, the file 0600, and neither its name nor its content
// holds the token. (A process: the CLI finds the home directory in the
// process's own environment.)
func TestAppendStateDirectory(t *testing.T) {
	srv := startServer(t, t.TempDir())
	owner := createShare(t, srv)
	xdg, home := t.TempDir(), t.TempDir()
	for _, tc := range []struct {
		env []string
		dir string
	}{
		{[]string{"XDG_STATE_HOME=" + xdg}, filepath.Join(xdg, "sharevat")},
		{[]string{"XDG_STATE_HOME=", "HOME=" + home}, filepath.Join(home, ".local", "state", "sharevat")},
	} {
		env := append([]string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=", obNoExitSleep}, tc.env...)
		_, stderr, code := cli(t, obThreeOps, env, "append")
		require.Equal(t, 0, code, stderr)
		fi, err := os.Stat(tc.dir)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm(), tc.dir)
		path := obOutboxPath(t, tc.dir, owner)
		fi, err = os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), path)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		secret := owner[len("svt1_")+24+1:] // the 43 characters after the grant id; they may hold '_' too
		assert.NotContains(t, string(b), secret, "the outbox never holds the token")
	}
}

// TestFlushWithAnotherTokenOfTheShare: ops stored under a token that is
// then revoked stay pending (flush exits 3 and keeps them); flush
// --outbox with another token of the same share sends them.
func TestFlushWithAnotherTokenOfTheShare(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := obGrant(ctx, t, srv.URL, owner)
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=ws://127.0.0.1:1/rpc", "SHAREVAT_STATE=" + state, obNoExitSleep}
	_, _, code := cliIn(t, obThreeOps, append(env, "SHAREVAT_TOKEN="+m.Token), "append", "--timeout", "200ms")
	require.Equal(t, 1, code, "no server: the ops stay pending")
	obRevoke(ctx, t, srv.URL, owner, m.GrantID)

	env = append(env, "SHAREVAT_URL="+srv.URL)
	_, stderr, code := cliIn(t, "", append(env, "SHAREVAT_TOKEN="+m.Token), "flush")
	assert.Equal(t, 3, code, "the revoked token is refused: %s", stderr)
	assert.Contains(t, stderr, "3 op(s) stay pending")
	out, stderr, code := cliIn(t, "", append(env, "SHAREVAT_TOKEN="+owner), "flush", "--outbox", obOutboxPath(t, state, m.Token))
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "applied 3")
	assert.Len(t, readAll(t, srv.URL, owner), 3)
}

func obGrant(ctx context.Context, t *testing.T, url, owner string) sharevat.Minted {
	t.Helper()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, owner)
	require.NoError(t, err)
	m, err := sh.Grant(ctx, sharevat.ScopeAppend, 0, "outbox test")
	require.NoError(t, err)
	return m
}

func obRevoke(ctx context.Context, t *testing.T, url, owner string, id sharevat.GrantID) {
	t.Helper()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, owner)
	require.NoError(t, err)
	require.NoError(t, sh.Revoke(ctx, id))
}
