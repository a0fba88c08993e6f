package tsclient_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/nodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// guideSection is the user guide's TypeScript section: its ```sh block's
// first line is the install command, its ```js block the program.
const guideSection = "## From TypeScript"

// guideBlocks returns the install command and the program of the guide's
// TypeScript section.
func guideBlocks(t *testing.T) (install, program string) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "docs", "guide.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(src), "\n"+guideSection)
	require.True(t, ok, "docs/guide.md has no %q section", guideSection)
	if i := strings.Index(rest, "\n## "); i >= 0 {
		rest = rest[:i]
	}
	sh := regexp.MustCompile("(?s)```sh\n(.*?)```").FindStringSubmatch(rest)
	js := regexp.MustCompile("(?s)```js\n(.*?)```").FindStringSubmatch(rest)
	require.NotNil(t, sh, "the TypeScript section has no ```sh block")
	require.NotNil(t, js, "the TypeScript section has no ```js block")
	install, _, _ = strings.Cut(sh[1], "\n")
	return strings.TrimSpace(install), js[1]
}

// TestGuideProgramFromPackedTarball: `npm pack` gives a tarball with the
// compiled JS and .d.ts; installed offline (from the tarball and the npm
// cache `npm ci` filled) into a fresh directory with the guide's install
// command, the guide's program runs as is on Node against a real vat,
// appends, tails and exits by itself.
func TestGuideProgramFromPackedTarball(t *testing.T) {
	node := needNode(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		nodetest.Missing(t, "npm is not on PATH: the TypeScript client's packed-tarball test did not run; install Node.js >= 20 with npm")
	}
	install, program := guideBlocks(t)
	require.Regexp(t, `^npm install \S+\.tgz\b`, install, "the guide's install command")
	tgzName := strings.Fields(install)[2]

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	packDir := t.TempDir()
	out, err := exec.CommandContext(ctx, npm, "pack", "--silent", "--pack-destination", packDir).CombinedOutput()
	require.NoError(t, err, "npm pack:\n%s", out)
	tgz := filepath.Join(packDir, filepath.Base(tgzName))
	require.FileExists(t, tgz, "npm pack made %s; the guide installs %s", strings.TrimSpace(string(out)), tgzName)
	list, err := exec.CommandContext(ctx, "tar", "-tzf", tgz).CombinedOutput()
	require.NoError(t, err, "%s", list)
	for _, f := range []string{"package/dist/index.js", "package/dist/index.d.ts", "package/dist/wire.d.ts", "package/README.md", "package/package.json"} {
		require.Contains(t, string(list), f+"\n")
	}
	require.NotContains(t, string(list), "package/src/", "the tarball ships the compiled package only")

	app := t.TempDir()
	cmd := exec.CommandContext(ctx, npm, "install", "--offline", "--no-audit", "--no-fund", tgz)
	cmd.Dir = app
	out, err = cmd.CombinedOutput()
	require.NoError(t, err, "npm install --offline %s:\n%s", tgz, out)
	require.NoError(t, os.WriteFile(filepath.Join(app, "hello.mjs"), []byte(program), 0o644))

	bin := server.Binary(t)
	srv := proctest.StartServe(t, bin)
	token := createShareGo(t, srv)
	run := func() string {
		cmd := exec.CommandContext(ctx, node, "hello.mjs")
		cmd.Dir = app
		cmd.Env = append(os.Environ(), "SHAREVAT_URL="+srv.URL, "SHAREVAT_TOKEN="+token)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "node hello.mjs:\n%s", out)
		return string(out)
	}
	require.Equal(t, "applied 1, duplicate 0; head is 1\n1 part msg_1:prt_1\n", run())
	require.Equal(t, "applied 0, duplicate 1; head is 1\n1 part msg_1:prt_1\n", run(), "run again, the op is a duplicate")
}

// createShareGo creates a share with the Go client and the server's admin
// token and returns its owner token.
func createShareGo(t *testing.T, srv *proctest.Server) string {
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
	title := "guide"
	sh, minted, err := a.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
	require.NoError(t, err)
	sh.Release()
	return minted.Token
}
