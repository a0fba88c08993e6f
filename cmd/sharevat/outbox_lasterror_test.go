package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/vattest"

	"github.com/sharevat/sharevat/internal/servertest"
)

// obListed runs `outbox list --json` and `outbox list` in env's state
// directory and returns the one outbox's last_error and its table row.
func obListed(t *testing.T, env []string) (lastError, row string) {
	t.Helper()
	out, stderr, code := cliIn(t, "", env, "outbox", "list", "--json")
	require.Equal(t, 0, code, stderr)
	var infos []struct {
		Pending   int    `json:"pending"`
		LastError string `json:"last_error"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &infos), out)
	require.Len(t, infos, 1, out)
	out, stderr, code = cliIn(t, "", env, "outbox", "list")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	require.Contains(t, lines[0], "LAST ERROR")
	return infos[0].LastError, lines[1]
}

// obAppendFails appends one op and expects it to give up (exit code
// want) with the op kept pending. An append that cannot reach its
// server (exit 1) waits out --timeout, so it is short; a refusal (exit
// 3) ends the append at once, so its --timeout only has to cover a
// handshake on a loaded machine (1 s did not, once, at a load of 10).
func obAppendFails(t *testing.T, env []string, want int) {
	t.Helper()
	timeout := "1s"
	if want != 1 {
		timeout = "1m"
	}
	_, stderr, code := cliIn(t, `{"op_id":"le1","kind":"event","body":{"n":1}}`+"\n", env, "append", "--timeout", timeout)
	require.Equal(t, want, code, stderr)
}

// TestOutboxListShowsWhyAppendGaveUp: an append that gives up at its
// --timeout because the server is down leaves the outbox's LAST ERROR
// set, in `outbox list` and `outbox list --json`, saying the server
// could not be reached (never the token); a flush once the server is
// back sends the op and clears it. On main an append that timed out
// recorded nothing: LAST ERROR was "-". The server is a process (it
// stops and starts again on its address); the CLI runs in-process, as
// in the other tests here: their subject is what the outbox records.
func TestOutboxListShowsWhyAppendGaveUp(t *testing.T) {
	t.Parallel() // waits out --timeout; shares nothing
	data, addr := t.TempDir(), obFreeAddr(t)
	srv := obStartAt(t, data, addr)
	owner := createShare(t, srv)
	srv.Stop(t)
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + t.TempDir(), obNoExitSleep}
	obAppendFails(t, env, 1)

	last, row := obListed(t, env)
	assert.Contains(t, last, "cannot reach "+srv.URL)
	assert.Contains(t, last, "connection refused")
	assert.Contains(t, last, "gave up")
	assert.Contains(t, row, "cannot reach "+srv.URL)
	assert.NotContains(t, last+row, owner)

	srv = obStartAt(t, data, addr)
	_, stderr, code := cliIn(t, "", env, "flush")
	require.Equal(t, 0, code, stderr)
	assert.Len(t, readAll(t, srv.URL, owner), 1, "the op was delivered once")
	last, row = obListed(t, env)
	assert.Empty(t, last, "a flush that delivered clears the last error")
	assert.True(t, strings.HasSuffix(strings.TrimSpace(row), "-"), "LAST ERROR is -: %q", row)
}

// TestOutboxLastErrorWhenNoAnswer: a server that takes the connection
// but never answers makes append time out with no failure to name; the
// outbox still says it got no answer before the deadline. On main:
// nothing recorded.
func TestOutboxLastErrorWhenNoAnswer(t *testing.T) {
	t.Parallel() // waits out --timeout; shares nothing
	url, _ := vattest.SilentServer(t)
	owner := someToken(t) // a well-formed token; the silent server never sees it redeemed
	env := []string{"SHAREVAT_URL=" + url, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + t.TempDir(), obNoExitSleep}
	obAppendFails(t, env, 1)

	last, row := obListed(t, env)
	assert.Contains(t, last, "no answer from "+url)
	assert.Contains(t, row, "no answer from "+url)
	assert.NotContains(t, last, owner)
}

// TestOutboxLastErrorWhenStoreDown: a server whose store is down cannot
// redeem the token; append gives up and the outbox says the server is
// unavailable; a flush once the store is back clears it.
func TestOutboxLastErrorWhenStoreDown(t *testing.T) {
	t.Parallel() // waits out --timeout; shares nothing
	o := boltOutage(t)
	env := []string{"SHAREVAT_URL=" + o.url, "SHAREVAT_TOKEN=" + o.token, "SHAREVAT_STATE=" + t.TempDir(), obNoExitSleep}
	o.down()
	obAppendFails(t, env, 1)
	last, _ := obListed(t, env)
	assert.Contains(t, last, "unavailable")
	assert.Contains(t, last, "gave up")
	assert.NotContains(t, last, o.token)

	o.up()
	_, stderr, code := cliIn(t, "", env, "flush")
	require.Equal(t, 0, code, stderr)
	last, _ = obListed(t, env)
	assert.Empty(t, last)
}

// TestOutboxLastErrorWhenRevoked: a revoked token is refused at once;
// the outbox keeps the refusal (without the token) as its last error,
// saying which server refused it. On main it kept only the server's
// "unauthorized: invalid or expired token".
func TestOutboxLastErrorWhenRevoked(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + t.TempDir(), obNoExitSleep}
	_, stderr, code := cliIn(t, "", env, "revoke", "--all")
	require.Equal(t, 0, code, stderr)
	obAppendFails(t, env, 3)
	last, _ := obListed(t, env)
	assert.Equal(t, srv.URL+" refused the token: unauthorized: invalid or expired token", last)
	assert.NotContains(t, last, owner)
	// gc still sees a refused token's outbox, once emptied, as garbage.
	_, stderr, code = cliIn(t, "", env, "outbox", "discard", "--pending", "--yes")
	require.Equal(t, 0, code, stderr)
	out, stderr, code := cliIn(t, "", env, "outbox", "gc", "--dry-run")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "outbox-", "gc would remove the refused token's empty outbox")
}
