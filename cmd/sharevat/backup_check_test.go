package main_test

import (
	"bytes"
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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// appendUntil appends 20-op batches to token's share until stop is
// closed, then returns the op ids acked, in cursor order; it closes under
// once 200 ops are acknowledged.
func appendUntil(t *testing.T, url, token string, stop <-chan struct{}, under chan<- struct{}) []string {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sh, app := mustAppender(ctx, t, url, token)
	var acked []string
	for b := 0; ; b++ {
		select {
		case <-stop:
			return acked
		default:
		}
		batch := &sharevat.Batch{BatchID: fmt.Sprint("bk-", b), Epoch: sh.Access.Epoch}
		for i := 0; i < 20; i++ {
			id := fmt.Sprintf("bk-%d-%d", b, i)
			batch.Ops = append(batch.Ops, sharevat.Op{OpID: id, Kind: sharevat.KindMessage, Key: fmt.Sprint("m", i),
				Body: []byte(fmt.Sprintf(`{"text":%q}`, strings.Repeat("y", 200)))})
		}
		ack, err := app.Append(ctx, batch)
		if err != nil {
			t.Errorf("append during the backup: %v", err)
			return acked
		}
		for _, r := range ack.Results {
			acked = append(acked, r.OpID)
		}
		if b == 9 {
			close(under) // 200 ops acknowledged: appends are under way
		}
	}
}

// TestBackupOfARunningVat: `backup --to F` with the admin token copies a
// vat while a client appends; the copy checks clean, and restoring it
// (stop the vat, put it in place as sharevat.db beside its pepper.key,
// start the vat) serves the share: a prefix of the acked ops, each at
// its cursor. `check --data` refuses the directory the vat holds, and a
// wrong token gets a 401 that says nothing more, never logged.
func TestBackupOfARunningVat(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	adminTok := filepath.Join(data, "admin.token")
	env := []string{"SHAREVAT_URL=" + srv.URL}

	stop := make(chan struct{})
	var acked []string
	var wg sync.WaitGroup
	wg.Add(1)
	under := make(chan struct{})
	go func() { defer wg.Done(); acked = appendUntil(t, srv.URL, owner, stop, under) }()
	select {
	case <-under:
	case <-time.After(time.Minute):
		t.Fatal("200 ops were not acknowledged within a minute")
	}
	file := filepath.Join(t.TempDir(), "vault.db")
	_, stderr, code := cli(t, "", env, "backup", "--to", file, "--token-file", adminTok)
	close(stop)
	wg.Wait()
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "keep pepper.key with it")

	out, stderr, code := cli(t, "", nil, "check", "--file", file)
	require.Equal(t, 0, code, "the copy checks clean: %s %s", out, stderr)
	assert.Contains(t, stderr, "no problem found")

	_, stderr, code = cli(t, "", nil, "check", "--data", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "in use by a running vat")

	refusedBackups(t, srv, owner)

	srv.Stop(t)
	require.NoError(t, os.Rename(file, filepath.Join(data, "sharevat.db")))
	srv = startServer(t, data)
	restored := readAll(t, srv.URL, owner)
	require.GreaterOrEqual(t, len(restored), 200, "the copy holds what was acked before it began")
	require.LessOrEqual(t, len(restored), len(acked))
	for i, e := range restored {
		require.Equal(t, acked[i], e.OpID, "cursor %d holds the op acked there", e.Cursor)
	}
	t.Logf("backup under appends: %d of %d acked ops in the copy", len(restored), len(acked))
}

// refusedBackups: a share token, a malformed token and no token all get
// the same bare 401 from /backup (the CLI exits 3), and no token reaches
// the vat's log.
func refusedBackups(t *testing.T, srv *server, owner string) {
	t.Helper()
	u := strings.Replace(strings.TrimSuffix(srv.URL, "/rpc"), "ws://", "http://", 1) + "/backup"
	for _, auth := range []string{"Bearer " + owner, "Bearer svt1_nonsense", "", "Basic abc"} {
		req, err := http.NewRequest(http.MethodGet, u, nil)
		require.NoError(t, err)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, auth)
		assert.Equal(t, "unauthorized\n", string(body), "a refusal says nothing more")
	}
	_, stderr, code := cli(t, "", []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner}, "backup", "--to", filepath.Join(t.TempDir(), "x.db"))
	assert.Equal(t, 3, code, stderr)
	assert.Contains(t, stderr, "admin token")
	assert.NotContains(t, srv.Log.String(), owner[len(owner)-43:], "no token is logged")
	admin, err := os.ReadFile(filepath.Join(srv.Data, "admin.token"))
	require.NoError(t, err)
	tok := strings.TrimSpace(string(admin))
	assert.NotContains(t, srv.Log.String(), tok[len(tok)-43:], "no token is logged")
}

// TestBackupOfAStoppedDirectory: `backup --data DIR` copies a stopped
// data directory, refuses one a vat holds, and the copy checks clean.
func TestBackupOfAStoppedDirectory(t *testing.T) {
	data, _ := usedVault(t, 50, "offline")
	file := filepath.Join(t.TempDir(), "copy.db")
	_, stderr, code := cli(t, "", nil, "backup", "--data", data, "--to", file, "--verify")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "no problem found")
	_, stderr, code = cli(t, "", nil, "check", "--data", data)
	assert.Equal(t, 0, code, stderr)

	startServer(t, data)
	_, stderr, code = cli(t, "", nil, "backup", "--data", data, "--to", file)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "back it up through the vat")
}

// TestCheckDetectsCorruption: a byte flipped inside one op's body in a
// copy of a data file: `check --file` exits 1 and names the share and
// the cursor; the original checks clean; a missing pepper.key is a
// problem of the directory.
func TestCheckDetectsCorruption(t *testing.T) {
	data, _ := usedVault(t, 5, "planted")
	out, stderr, code := cli(t, "", nil, "check", "--data", data)
	require.Equal(t, 0, code, "%s %s", out, stderr)
	assert.Empty(t, out)

	b, err := os.ReadFile(filepath.Join(data, "sharevat.db"))
	require.NoError(t, err)
	target := []byte("planted-3")
	require.Positive(t, bytes.Count(b, target))
	for i := bytes.Index(b, target); i >= 0; i = bytes.Index(b, target) {
		b[i+len(target)-1] = '8'
	}
	bad := filepath.Join(t.TempDir(), "damaged.db")
	require.NoError(t, os.WriteFile(bad, b, 0o600))
	out, stderr, code = cli(t, "", nil, "check", "--file", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is damaged")
	assert.Contains(t, out, "cursor 4")
	assert.Contains(t, out, "share ")
	assert.NotContains(t, out, "planted", "problems never quote op contents")

	require.NoError(t, os.Remove(filepath.Join(data, "pepper.key")))
	out, _, code = cli(t, "", nil, "check", "--data", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "pepper.key is missing")
}
