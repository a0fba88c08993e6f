package main_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/proctest"
)

// TestOpencodeTokenCommands: the creation-token commands against a
// running vat. Invariant: mint prints the token once, on stdout, and the
// opencode config line with <token> in its place on stderr; the token creates a share through
// the door; list shows it live with its quotas and never the token;
// revoke ends it (the next create is 401) and list shows it revoked;
// a share token in place of the admin token is refused (exit 3).
func TestOpencodeTokenCommands(t *testing.T) {
	data := t.TempDir()
	s := startServer(t, data)
	admin := []string{"--server", s.URL, "--token-file", filepath.Join(data, "admin.token")}
	out, stderr, code := cli(t, "", nil, append([]string{"opencode-token", "mint", "--name", "laptop", "--shares-per-hour", "5", "--bytes-per-share", "1MiB"}, admin...)...)
	require.Equal(t, 0, code, stderr)
	token := strings.TrimSpace(out)
	require.True(t, strings.HasPrefix(token, "svt1_"), out)
	base := strings.TrimSuffix(strings.Replace(s.URL, "ws://", "http://", 1), "/rpc")
	assert.Contains(t, stderr, `{"enterprise":{"url":"`+base+`/opencode/<token>"}}`, "the config line, with a placeholder")
	assert.NotContains(t, stderr, token[len(token)-43:], "the token is printed once, on stdout only (mint > file keeps it off the terminal)")

	resp, err := http.Post(base+"/opencode/"+token+"/api/share", "application/json", strings.NewReader(`{"sessionID":"ses_cli"}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	out, stderr, code = cli(t, "", nil, append([]string{"opencode-token", "list", "--json"}, admin...)...)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, out, token)
	var list []struct {
		GrantID       string `json:"grant_id"`
		Name          string
		SharesPerHour int   `json:"shares_per_hour"`
		BytesPerShare int64 `json:"bytes_per_share"`
		Revoked       bool
	}
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list, 1)
	assert.Equal(t, "laptop", list[0].Name)
	assert.Equal(t, 5, list[0].SharesPerHour)
	assert.EqualValues(t, 1<<20, list[0].BytesPerShare)
	assert.False(t, list[0].Revoked)
	assert.True(t, strings.HasPrefix(token, "svt1_"+list[0].GrantID+"_"))

	_, stderr, code = cli(t, "", nil, append([]string{"opencode-token", "revoke", "--grant", list[0].GrantID}, admin...)...)
	require.Equal(t, 0, code, stderr)
	resp, err = http.Post(base+"/opencode/"+token+"/api/share", "application/json", strings.NewReader(`{"sessionID":"ses_cli2"}`))
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	out, _, _ = cli(t, "", nil, append([]string{"opencode-token", "list"}, admin...)...)
	assert.Contains(t, out, "revoked")

	_, stderr, code = cli(t, "", []string{"SHAREVAT_TOKEN=" + token}, "opencode-token", "list", "--server", s.URL)
	assert.Equal(t, 3, code, stderr)
	assert.NotContains(t, stderr, token[len(token)-43:])
}

// TestServeOpencodeOpenLoopbackOnly: --opencode-open lets anyone who
// reaches the port create shares, so, like --open, it is refused on a
// listener beyond loopback (exit 2, saying what to do instead) and
// served on loopback, where a create needs no token.
func TestServeOpencodeOpenLoopbackOnly(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", ":0"} {
		s, err := proctest.Start(t, binary, nil, "serve", "--opencode-open", "--listen", listen, "--data", t.TempDir())
		require.Error(t, err, "serve --opencode-open --listen %s must not start", listen)
		assertExit(t, s, 2)
		assert.Contains(t, s.Log.String(), "is not a loopback address")
		assert.Contains(t, s.Log.String(), "creation token")
	}
	s := startServer(t, t.TempDir(), "--opencode-open")
	base := strings.TrimSuffix(strings.Replace(s.URL, "ws://", "http://", 1), "/rpc")
	resp, err := http.Post(base+"/api/share", "application/json", strings.NewReader(`{"sessionID":"ses_open"}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}
