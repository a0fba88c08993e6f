package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestListShowsSharesWithTheirTrueHead: `sharevat list` with the admin
// token prints every share — id, title, status, head, updated — as a
// table, and with --json as an array; the head is the share's true head
// after appends; no token is printed; a share token exits 3 with the
// admin-token hint. Before, there was no `list` command (exit 2).
func TestListShowsSharesWithTheirTrueHead(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{})
	base := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + t.TempDir()}
	admin := append(base, "SHAREVAT_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token"))
	ids := map[string]string{}
	tokens := map[string]string{}
	for _, title := range []string{"alpha", "beta"} {
		out, stderr, code := cliIn(t, "", admin, "create", "--title", title, "--json")
		require.Equal(t, 0, code, stderr)
		var c struct{ ShareID, Token string }
		require.NoError(t, json.Unmarshal([]byte(out), &struct {
			ShareID *string `json:"share_id"`
			Token   *string `json:"token"`
		}{&c.ShareID, &c.Token}))
		ids[title], tokens[title] = c.ShareID, c.Token
	}
	ops := `{"kind":"event","body":{}}` + "\n" + `{"kind":"event","body":{}}` + "\n" + `{"kind":"event","body":{}}` + "\n"
	_, stderr, code := cliIn(t, ops, append(base, "SHAREVAT_TOKEN="+tokens["alpha"]), "append")
	require.Equal(t, 0, code, stderr)

	out, stderr, code := cliIn(t, "", admin, "list")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3, out)
	assert.Equal(t, []string{"ID", "TITLE", "STATUS", "HEAD", "UPDATED"}, strings.Fields(lines[0]))
	rows := map[string][]string{}
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		require.Len(t, f, 5, l)
		rows[f[0]] = f
	}
	assert.Equal(t, []string{"alpha", "idle", "3"}, rows[ids["alpha"]][1:4])
	assert.Equal(t, []string{"beta", "idle", "0"}, rows[ids["beta"]][1:4])
	assert.Regexp(t, `^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$`, rows[ids["alpha"]][4])

	out, stderr, code = cliIn(t, "", admin, "list", "--json")
	require.Equal(t, 0, code, stderr)
	var shares []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &shares))
	require.Len(t, shares, 2)
	byID := map[string]map[string]any{}
	for _, s := range shares {
		byID[s["share_id"].(string)] = s
		for _, k := range []string{"share_id", "title", "status", "head", "updated_at"} {
			assert.Contains(t, s, k)
		}
	}
	assert.Equal(t, float64(3), byID[ids["alpha"]]["head"])
	assert.Equal(t, "beta", byID[ids["beta"]]["title"])

	for _, tok := range tokens {
		full, _, _ := cliIn(t, "", admin, "list", "--json")
		assert.NotContains(t, full, tok[len(tok)-20:], "a token leaked")
	}
	_, stderr, code = cliIn(t, "", append(base, "SHAREVAT_TOKEN="+tokens["beta"]), "list")
	assert.Equal(t, 3, code, stderr)
	assert.Contains(t, stderr, "admin token")

	stdout, _, code := cliIn(t, "", nil, "help")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^  list\s+list the shares`, stdout)
}
