package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// TestAckedOpsSurviveSIGKILL: append batches to a real server process,
// SIGKILL it right after the acks, restart it on the same data directory.
// Invariants: every acked op is in the log at its acked cursor, the log
// holds nothing else, and the owner token still redeems. Repeated over
// several kill/restart rounds.
func TestAckedOpsSurviveSIGKILL(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	acked := map[string]sharevat.Cursor{}
	const rounds, batches, perBatch = 3, 5, 20
	for round := 0; round < rounds; round++ {
		appendAndRecord(t, srv.URL, owner, round, batches, perBatch, acked)
		srv.Kill()
		srv = startServer(t, data)
	}
	entries := readAll(t, srv.URL, owner)
	require.Len(t, entries, len(acked), "the log holds exactly the acked ops")
	for _, e := range entries {
		assert.Equal(t, acked[e.OpID], e.Cursor, "op %s at its acked cursor", e.OpID)
	}
	t.Logf("%d rounds, %d acked ops survived SIGKILL", rounds, len(acked))
}

func createShare(t *testing.T, srv *server) string {
	t.Helper()
	out, stderr, code := cli(t, "", nil, "create", "--server", srv.URL, "--token-file", filepath.Join(srv.Data, "admin.token"), "--title", "crash")
	require.Equal(t, 0, code, stderr)
	return firstLine(out)
}

func appendAndRecord(t *testing.T, url, token string, round, batches, perBatch int, acked map[string]sharevat.Cursor) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, token)
	require.NoError(t, err, "the owner token redeems after restart")
	app, err := sh.Appender(ctx)
	require.NoError(t, err)
	for b := 0; b < batches; b++ {
		batch := &sharevat.Batch{BatchID: fmt.Sprintf("r%d-b%d", round, b), Epoch: sh.Access.Epoch}
		for i := 0; i < perBatch; i++ {
			id := fmt.Sprintf("r%d-b%d-o%d", round, b, i)
			batch.Ops = append(batch.Ops, sharevat.Op{OpID: id, Kind: "message", Key: id, Body: []byte(`{"n":1}`)})
		}
		ack, err := app.Append(ctx, batch)
		require.NoError(t, err)
		require.Equal(t, perBatch, ack.Applied)
		for _, r := range ack.Results {
			acked[r.OpID] = r.Cursor
		}
	}
}

func firstLine(s string) string {
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}

// TestServeRefusesSecondProcess: a second server on the same data
// directory fails fast with a clear message instead of hanging.
func TestServeRefusesSecondProcess(t *testing.T) {
	data := t.TempDir()
	startServer(t, data)
	_, stderr, code := cli(t, "", nil, "serve", "--listen", "127.0.0.1:0", "--data", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "in use")
}

// TestFirstStartWritesAdminToken: the admin token file is 0600 and the
// pepper is kept in its own 0600 file.
func TestFirstStartWritesAdminToken(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data)
	for _, name := range []string{"admin.token", "pepper.key", "sharevat.db"} {
		fi, err := os.Stat(filepath.Join(data, name))
		require.NoError(t, err, name)
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), name)
	}
	tok, err := os.ReadFile(filepath.Join(data, "admin.token"))
	require.NoError(t, err)
	assert.NotContains(t, srv.Log.String(), string(tok[:len(tok)-1]), "the token never reaches the log")
	srv.Stop(t)
	again := startServer(t, data)
	tok2, err := os.ReadFile(filepath.Join(data, "admin.token"))
	require.NoError(t, err)
	assert.Equal(t, tok, tok2, "a restart keeps the admin token")
	again.Stop(t)
}
