package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/vattest"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestCreateWithShareTokenSaysWhichTokenItNeeds: `create` given a valid
// share token (not the admin token) exits 3 with one line that says it
// needs the server's admin token, where that is and how to pass it, and
// never prints the token. Before, it said only "check the
// token: it may be wrong, revoked or expired". A wrong token gets the
// very same line: nothing tells the two apart.
func TestCreateWithShareTokenSaysWhichTokenItNeeds(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{})
	base := []string{"SHAREVAT_URL=" + srv.URL}
	out, stderr, code := cliIn(t, "", append(base, "SHAREVAT_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token")), "create", "--title", "one")
	require.Equal(t, 0, code, stderr)
	owner := firstLine(out)

	said := map[string]string{}
	for name, tok := range map[string]string{"share token": owner, "wrong token": vattest.WrongSecret(owner)} {
		t.Run(name, func(t *testing.T) {
			out, stderr, code := cliIn(t, "", append(base, "SHAREVAT_TOKEN="+tok), "create", "--title", "two")
			assert.Equal(t, 3, code, stderr)
			assert.Empty(t, out)
			line := strings.TrimSpace(stderr)
			assert.Equal(t, 1, strings.Count(line, "\n")+1, "one line: %s", stderr)
			for _, want := range []string{"unauthorized", "admin token", "<data>/admin.token", "--token-file"} {
				assert.Contains(t, line, want)
			}
			assert.NotContains(t, stderr, tok[len(tok)-20:], "the token's secret leaked")
			said[name] = stderr
		})
	}
	assert.Equal(t, said["share token"], said["wrong token"])
}
