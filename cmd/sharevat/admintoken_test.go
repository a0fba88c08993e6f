package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// redeemAdminAt redeems the admin token on a new connection to url.
func redeemAdminAt(t *testing.T, url, token string) (*client.Admin, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	a, err := conn.RedeemAdmin(ctx, token)
	if err == nil {
		t.Cleanup(a.Release)
	}
	return a, err
}

// readToken reads a token file.
func readToken(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.TrimSpace(string(b))
}

// TestAdminTokenRotatePG: on two running vats on one database,
// `admin-token --rotate` replaces the first vat's admin.token (0600)
// without printing the token; the old admin token is refused on both
// vats, a live admin capability made from it on vat B is refused soon
// after (the revoke's notice), and the new one works on both. Without
// --rotate it is a usage error; another pepper is refused.
func TestAdminTokenRotatePG(t *testing.T) {
	pv := startPGVats(t, 2)
	old := readToken(t, pv.adminFile())
	live, err := redeemAdminAt(t, pv.url(1), old)
	require.NoError(t, err)

	_, stderr, code := cli(t, "", nil, "admin-token", "--store", pv.dsn, "--data", pv.vats[0].data)
	assert.Equal(t, 2, code, stderr)
	_, stderr, code = cli(t, "", []string{"SHAREVAT_PEPPER=" + strings.Repeat("A", 44)}, "admin-token", "--rotate",
		"--store", pv.dsn, "--data", pv.vats[0].data)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not the one the database's tokens were made with")
	assert.Equal(t, old, readToken(t, pv.adminFile()), "a refused rotation leaves the token")

	out, stderr, code := cli(t, "", nil, "admin-token", "--rotate", "--store", pv.dsn, "--data", pv.vats[0].data)
	require.Equal(t, 0, code, stderr)
	fresh := readToken(t, pv.adminFile())
	require.NotEqual(t, old, fresh)
	assert.NotContains(t, out+stderr, fresh, "the new token is only in the file")
	fi, err := os.Stat(pv.adminFile())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	for i := range 2 {
		_, err := redeemAdminAt(t, pv.url(i), old)
		assert.ErrorIs(t, err, sharevat.ErrUnauthorized, "the old admin token on vat %d", i)
		createShareWith(t, pv.url(i), pv.adminFile())
	}
	deadline := time.Now().Add(5 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) { // nothing tells the test when vat B has the notice
		if _, _, err = live.List(context.Background(), sharevat.ListFilter{}); err != nil {
			break
		}
	}
	assert.ErrorIs(t, err, sharevat.ErrRevoked, "the live admin capability on vat B")
}

// TestAdminTokenRotateBolt: a running vat's data directory is refused
// (stop it first); stopped, --rotate replaces admin.token, and after a
// restart the old token is refused and the new one creates shares.
func TestAdminTokenRotateBolt(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data)
	file := filepath.Join(data, "admin.token")
	old := readToken(t, file)
	_, stderr, code := cli(t, "", nil, "admin-token", "--rotate", "--data", data)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "stop it first")
	srv.Stop(t)

	_, stderr, code = cli(t, "", nil, "admin-token", "--rotate", "--data", data)
	require.Equal(t, 0, code, stderr)
	require.NotEqual(t, old, readToken(t, file))
	srv = startServer(t, data)
	_, err := redeemAdminAt(t, srv.URL, old)
	assert.ErrorIs(t, err, sharevat.ErrUnauthorized, "the old admin token")
	createShareWith(t, srv.URL, file)
}
