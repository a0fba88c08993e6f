package main_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestServerURLEveryForm: SHAREVAT_URL means one thing to every client
// (docs/guide.md, "The vat's URL"): the CLI reaches the vat through the
// plugin's http://HOST:PORT (with or without a trailing slash), through
// ws://HOST:PORT, and through the /rpc and /capnweb endpoints; create,
// append and read each work. Before, every form but ws://…/rpc exited 2
// ("is http: use ws://…/rpc"), so one shell could not serve both the
// plugin and the CLI.
func TestServerURLEveryForm(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{})
	host := strings.TrimPrefix(srv.HTTP, "http://")
	admin := "SHAREVAT_TOKEN_FILE=" + filepath.Join(srv.Data, "admin.token")
	for _, u := range []string{"http://" + host, "http://" + host + "/", "ws://" + host, "ws://" + host + "/rpc", "ws://" + host + "/capnweb"} {
		t.Run(u, func(t *testing.T) {
			env := []string{"SHAREVAT_URL=" + u, "SHAREVAT_STATE=" + t.TempDir()}
			out, stderr, code := cliIn(t, "", append(env, admin), "create", "--title", "url form")
			require.Equal(t, 0, code, stderr)
			env = append(env, "SHAREVAT_TOKEN="+firstLine(out))
			_, stderr, code = cliIn(t, `{"kind":"event","body":{"n":1}}`+"\n", env, "append")
			require.Equal(t, 0, code, stderr)
			out, stderr, code = cliIn(t, "", env, "read")
			require.Equal(t, 0, code, stderr)
			assert.Contains(t, out, `"n":1`, "the op appended through %s is read back", u)
		})
	}
}
