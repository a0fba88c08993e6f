package npmpublish_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/proctest"
)

// readmeURL is the vat URL the client README's program connects to; the
// test points it at its own vat.
const readmeURL = "ws://127.0.0.1:7420/capnweb"

// readmeBlocks returns the install command (the first line of the
// README's first ```sh block) and the program (its first ```js block).
func readmeBlocks(t *testing.T) (install, program string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(clients, "typescript", "README.md"))
	require.NoError(t, err)
	sh := regexp.MustCompile("(?s)```sh\n(.*?)```").FindSubmatch(src)
	js := regexp.MustCompile("(?s)```js\n(.*?)```").FindSubmatch(src)
	require.NotNil(t, sh, "clients/typescript/README.md has no ```sh block")
	require.NotNil(t, js, "clients/typescript/README.md has no ```js block")
	install, _, _ = strings.Cut(string(sh[1]), "\n")
	install, _, _ = strings.Cut(install, "#")
	return strings.TrimSpace(install), string(js[1])
}

// TestClientReadmeProgram: in a fresh directory, the README's install
// command fetches @sharevat/client by name from the registry, and the
// README's program (its URL pointed at the test's vat) appends its op:
// the vat holds it once after two runs. Both entry points also load
// through require() (Node >= 20.19 loads ES modules with require).
func TestClientReadmeProgram(t *testing.T) {
	reg, node, npm := published(t)
	install, program := readmeBlocks(t)
	require.Equal(t, "npm install @sharevat/client", install, "the README's install command")
	require.Contains(t, program, readmeURL)

	srv := proctest.StartServe(t, server.Binary(t))
	token := createShare(t, srv)
	app := t.TempDir()
	runIn(t, app, reg.Env(), npm, append(strings.Fields(install)[1:], "--no-audit", "--no-fund")...)
	url := strings.TrimSuffix(srv.URL, "/rpc") + "/capnweb"
	require.NoError(t, os.WriteFile(filepath.Join(app, "readme.mjs"), []byte(strings.ReplaceAll(program, readmeURL, url)), 0o644))
	for range 2 {
		runIn(t, app, append(os.Environ(), "SHAREVAT_TOKEN="+token), node, "readme.mjs")
	}
	ops := readShare(t, srv, token)
	require.Len(t, ops, 1, "the README's op, once (the second run's is a duplicate)")
	require.Equal(t, "e1", ops[0].OpID)
	require.JSONEq(t, `{"n":1}`, string(ops[0].Body))

	out := runIn(t, app, os.Environ(), node, "-e",
		`const c = require("@sharevat/client"), o = require("@sharevat/client/outbox");
		 console.log(typeof c.connect, typeof c.Redeemer, typeof o.Outbox)`)
	require.Equal(t, "function function function\n", out, "require() of both entry points")
}

// createShare creates a share with the Go client and the vat's admin
// token and returns its owner token.
func createShare(t *testing.T, srv *proctest.Server) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := os.ReadFile(filepath.Join(srv.Data, "admin.token"))
	require.NoError(t, err)
	conn, err := client.Dial(ctx, srv.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	a, err := conn.RedeemAdmin(ctx, string(admin))
	require.NoError(t, err)
	defer a.Release()
	title := "npm readme"
	sh, minted, err := a.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	require.NoError(t, err)
	sh.Release()
	return minted.Token
}

// readShare reads the share of token from the start with the Go client.
func readShare(t *testing.T, srv *proctest.Server, token string) []sharevat.Entry {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := client.Dial(ctx, srv.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, token)
	require.NoError(t, err)
	defer sh.Release()
	r, err := sh.Reader(ctx)
	require.NoError(t, err)
	defer r.Release()
	ops, _, err := r.Read(ctx, 0, 100)
	require.NoError(t, err)
	return ops
}
