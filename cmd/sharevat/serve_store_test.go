package main_test

import (
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/proctest"
)

// TestServeStoreShared: on one database, a vat given another pepper
// refuses to start, naming the way to give it the right one; a vat
// without a pepper file refuses too (the database holds grants); a vat
// given the pepper in SHAREVAT_PEPPER (base64) and SHAREVAT_STORE
// starts, does not mint a second admin token, answers /backup with 501
// and exports the pool's figures and the notice lag on /metrics.
func TestServeStoreShared(t *testing.T) {
	pv := startPGVats(t, 1)
	other := t.TempDir()
	_, stderr, code := cli(t, "", nil, "serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(), "--store", pv.dsn,
		"--pepper-file", filepath.Join(other, "absent.key"))
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "pepper of the vats already on the database")

	wrong := make([]byte, 32)
	_, stderr, code = cli(t, "", []string{"SHAREVAT_PEPPER=" + base64.StdEncoding.EncodeToString(wrong)},
		"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(), "--store", pv.dsn)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "not the one the database's tokens were made with")

	pepper, err := os.ReadFile(pv.pepper)
	require.NoError(t, err)
	data := t.TempDir()
	srv, err := proctest.Start(t, binary, []string{"SHAREVAT_PEPPER=" + base64.StdEncoding.EncodeToString(pepper), "SHAREVAT_STORE=" + pv.dsn},
		"serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(data, "admin.token"), "one admin token for the database")
	assert.NoFileExists(t, filepath.Join(data, "pepper.key"))
	assert.Contains(t, srv.Log.String(), "minted by another vat", "it says where the admin token is")
	createShareWith(t, srv.URL, pv.adminFile())
	base := "http" + strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws"), "/rpc")
	resp, err := http.Get(base + "/backup")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotImplemented, resp.StatusCode, "/backup on PostgreSQL")
	resp, err = http.Get(base + "/metrics")
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, name := range []string{"sharevat_pg_pool_max_conns", "sharevat_pg_pool_acquired_conns", "sharevat_notice_lag_seconds"} {
		assert.Contains(t, string(body), name)
	}
}
