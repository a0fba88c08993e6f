package main_test

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestHealthCommand: `sharevat health` exits 0 for a serving vat, 1
// with the cause when nothing answers, 2 for a URL that is not http(s).
func TestHealthCommand(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{})
	u := "http" + strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws"), "/rpc") + "/healthz"
	out, stderr, code := cliIn(t, "", nil, "health", "--url", u)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "ok\n", out)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String() + "/healthz"
	require.NoError(t, ln.Close())
	_, stderr, code = cliIn(t, "", nil, "health", "--url", dead)
	assert.Equal(t, 1, code)
	assert.Equal(t, "sharevat: unhealthy: "+dead+": connection refused", strings.TrimSpace(stderr))

	_, _, code = cliIn(t, "", nil, "health", "--url", strings.TrimSuffix(u, "/healthz")+"/nope")
	assert.Equal(t, 1, code, "anything but 200 is unhealthy")
	_, _, code = cliIn(t, "", nil, "health", "--url", srv.URL)
	assert.Equal(t, 2, code, "a ws:// URL is a usage error")
}

// TestTokenFlagsBeatTheEnvironment: --token-file and --token on the
// command line win over SHAREVAT_TOKEN (the README's walk-through
// exports a share token, then runs list with --token-file admin.token).
func TestTokenFlagsBeatTheEnvironment(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	data := srv.Data
	adminFile := filepath.Join(data, "admin.token")
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner}

	_, stderr, code := cliIn(t, "", env, "list", "--token-file", adminFile)
	assert.Equal(t, 0, code, "--token-file wins over SHAREVAT_TOKEN: %s", stderr)
	admin, err := os.ReadFile(adminFile)
	require.NoError(t, err)
	_, stderr, code = cliIn(t, "", append(env, "SHAREVAT_TOKEN_FILE=/nonexistent"), "list", "--token", string(admin))
	assert.Equal(t, 0, code, "--token wins over SHAREVAT_TOKEN_FILE: %s", stderr)
	_, _, code = cliIn(t, "", env, "list")
	assert.Equal(t, 3, code, "SHAREVAT_TOKEN is used when no flag names a token")
}
