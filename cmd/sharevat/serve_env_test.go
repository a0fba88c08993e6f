package main_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/proctest"
)

// TestServeEnv: serve takes every setting from SHAREVAT_<FLAG> when the
// command line does not give it, the command line wins, a bad
// value exits 2 naming the variable, and -h names each variable.
func TestServeEnv(t *testing.T) {
	data := t.TempDir()
	env := []string{"SHAREVAT_LISTEN=127.0.0.1:0", "SHAREVAT_DATA=" + data, "SHAREVAT_LOG_LEVEL=debug"}
	s, err := proctest.Start(t, binary, env, "serve")
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(data, "admin.token"), "SHAREVAT_DATA chose the data directory")
	assert.Contains(t, s.Log.String(), "level=DEBUG", "SHAREVAT_LOG_LEVEL took effect")
	s.Stop(t)

	flagData := t.TempDir()
	envData := filepath.Join(t.TempDir(), "from-env")
	s, err = proctest.Start(t, binary, []string{"SHAREVAT_LISTEN=127.0.0.1:0", "SHAREVAT_DATA=" + envData}, "serve", "--data", flagData)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(flagData, "admin.token"), "the flag wins over the env")
	assert.NoDirExists(t, envData)
	s.Stop(t)

	_, stderr, code := cli(t, "", []string{"SHAREVAT_MAX_CONNS_PER_IP=lots", "SHAREVAT_DATA=" + t.TempDir()}, "serve", "--listen", "127.0.0.1:0")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "SHAREVAT_MAX_CONNS_PER_IP")

	help, _, _ := cli(t, "", nil, "serve", "-h")
	for _, v := range []string{"SHAREVAT_LISTEN", "SHAREVAT_DATA", "SHAREVAT_MAX_CONNS_PER_IP", "SHAREVAT_TLS_CERT", "SHAREVAT_LOG_FORMAT", "SHAREVAT_OPEN"} {
		assert.Contains(t, help, "(env "+v+")", "serve -h names %s", v)
	}
}
