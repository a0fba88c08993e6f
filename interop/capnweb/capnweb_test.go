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
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"sharevat/internal/proctest"
)

// needNode returns node's path, or skips the test with a notice saying
// what is missing and how to get it.
func needNode(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("NOTICE: node is not on PATH: the Cap'n Web Node suite and TypeScript check did not run; install Node.js >= 20 and run `npm ci` in interop/capnweb")
	}
	for _, dep := range []string{"capnweb", "ws", "typescript"} {
		if _, err := os.Stat(filepath.Join("node_modules", dep, "package.json")); err != nil {
			t.Skipf("NOTICE: interop/capnweb/node_modules/%s is missing: the Cap'n Web Node suite and TypeScript check did not run; run `(cd interop/capnweb && npm ci)`", dep)
		}
	}
	return node
}

// TestTypeScript type-checks the declaration, the README's snippet
// (connect.ts) and the example with the pinned TypeScript compiler.
func TestTypeScript(t *testing.T) {
	node := needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", ".")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "tsc --noEmit -p interop/capnweb:\n%s", out)
}

// TestNodeSuite runs test/*.test.mjs with node's test runner against a
// real server.
func TestNodeSuite(t *testing.T) {
	node := needNode(t)
	files, err := filepath.Glob(filepath.Join("test", "*.test.mjs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)

	bin := buildServer(t)
	srv := startServer(t, bin)
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

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// TestMain removes the server binary shared by the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// buildServer builds the sharevat binary once per test binary, with the
// race detector, so the server is checked for races under capnweb.
func buildServer(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		builtBin, buildDir, buildErr = proctest.Build(filepath.Join("..", "..", "cmd", "sharevat"), true)
	})
	require.NoError(t, buildErr)
	return builtBin
}

// startServer runs `sharevat serve` on a free loopback port with a fresh
// data directory, waits until it says where it serves, and at cleanup
// stops it and fails the test if it reported a data race.
func startServer(t *testing.T, bin string) *proctest.Server {
	t.Helper()
	s, err := proctest.Start(t, bin, []string{"GORACE=atexit_sleep_ms=0 exitcode=66"},
		"serve", "--listen", "127.0.0.1:0", "--data", filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Cleanup(func() { checkRace(t, s) })
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.Done():
		case <-time.After(20 * time.Second):
			s.Kill()
		}
		checkRace(t, s)
	})
	return s
}

// checkRace fails the test if the exited server reported a data race.
func checkRace(t *testing.T, s *proctest.Server) {
	var ee *exec.ExitError
	if (errors.As(s.Err(), &ee) && ee.ExitCode() == 66) || strings.Contains(s.Log.String(), "WARNING: DATA RACE") {
		t.Errorf("the server reported a data race:\n%s", s.Log)
	}
}
