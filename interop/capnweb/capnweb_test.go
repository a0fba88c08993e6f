// Package capnwebinterop_test proves that the official capnweb npm package
// can use sharevat's Cap'n Web door (docs/capnweb.md) and that the
// TypeScript declaration of the vat's interface is sound:
//
//   - TestTypeScript: `tsc --noEmit -p .` over sharevat.d.ts and
//     example/sync.ts (strict).
//   - TestNodeSuite: builds the real binary, runs `sharevat serve` on a
//     fresh data directory and runs the Node suite (test/*.test.mjs) against
//     its /capnweb, with the sharevat CLI crossing over to /rpc.
//
// Both skip, with a loud NOTICE, when node or node_modules is missing (run
// `npm ci` here); CI installs them. See README.md.
package capnwebinterop_test

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

	"github.com/sharevat/sharevat/internal/nodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// needNode returns node's path, or skips the test with a notice saying
// what is missing and how to get it.
func needNode(t *testing.T) string {
	t.Helper()
	return nodetest.Need(t, ".", "interop/capnweb", "the Cap'n Web Node suite and TypeScript check", "capnweb", "ws", "typescript")
}

// TestTypeScript type-checks the declaration, the README's snippet
// (connect.ts) and the example with the pinned TypeScript compiler.
func TestTypeScript(t *testing.T) {
	node := needNode(t)
	nodetest.Tsc(t, node, ".", 2*time.Minute, "--noEmit", "-p", ".")
}

// TestNodeSuite runs test/*.test.mjs with node's test runner against a
// real server.
func TestNodeSuite(t *testing.T) {
	node := needNode(t)
	files, err := filepath.Glob(filepath.Join("test", "*.test.mjs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)

	bin := server.Binary(t)
	srv := proctest.StartServe(t, bin)
	base := strings.TrimSuffix(srv.URL, "/rpc")
	require.NotEqual(t, base, srv.URL, "the server's URL %q does not end in /rpc", srv.URL)

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"--test", "--test-timeout=120000"}, files...)
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Env = append(os.Environ(),
		"SHAREVAT_CAPNWEB_URL="+base+"/capnweb",
		"SHAREVAT_RPC_URL="+srv.URL,
		"SHAREVAT_BIN="+bin,
		"SHAREVAT_ADMIN_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token"),
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test failed (%v):\n%s\nserver log:\n%s", err, out, srv.Log)
	}
	pass, fail, todo := count(out, "pass"), count(out, "fail"), count(out, "todo")
	t.Logf("Node suite: %s passed, %s failed, %s todo (%d files)", pass, fail, todo, len(files))
	require.Equal(t, "0", fail, "%s", out)
	require.Equal(t, "0", todo, "a test marked todo is a known bug left open:\n%s", todos(out))
	require.NotEqual(t, "0", pass, "%s", out)
}

// count returns the number node's TAP summary gives for name ("# pass 12").
func count(tap []byte, name string) string {
	m := regexp.MustCompile(`(?m)^# ` + name + ` (\d+)$`).FindSubmatch(tap)
	if m == nil {
		return "?"
	}
	return string(m[1])
}

// todos returns the TAP lines of the tests marked todo.
func todos(tap []byte) string {
	var b strings.Builder
	for _, line := range strings.Split(string(tap), "\n") {
		if strings.Contains(line, "# TODO") {
			b.WriteString(strings.TrimSpace(line) + "\n")
		}
	}
	return b.String()
}

// server is the sharevat binary the tests share, built with the race
// detector so the server is checked for races under these clients.
var server = proctest.Once{PkgDir: filepath.Join("..", "..", "cmd", "sharevat"), Race: true}

// TestMain removes the shared server binary.
func TestMain(m *testing.M) {
	code := m.Run()
	server.Cleanup()
	os.Exit(code)
}
