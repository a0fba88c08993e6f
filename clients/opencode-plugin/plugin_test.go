// Package opencodeplugin_test runs the opencode plugin's Node suite
// (test/*.test.mjs: the item mapping, the hook, and the flush against a
// real vat: converging with the door's share, a refused creation token, a
// revoked share token, the vat SIGKILLed mid-flush) with node's test runner: TestNodeSuite builds the
// real binary, runs `sharevat serve` on a fresh data directory and points
// the suite at it. TestTypeCheck type-checks the plugin's JavaScript
// (checkJs, strict) with the pinned TypeScript compiler.
//
// The plugin depends on @sharevat/client (clients/typescript, linked by
// "file:../typescript"): needNode compiles that package (tsc → dist/) once
// per test binary, so the order in which CI runs `npm ci` does not matter.
// Every test skips, with a NOTICE, when node or a node_modules is missing
// (run `npm ci` here and in clients/typescript); CI installs them. See
// README.md.
package opencodeplugin_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"sharevat/internal/nodetest"
	"sharevat/internal/opencodetest"
	"sharevat/internal/proctest"
)

// needNode returns node's path, or skips the test with a notice saying
// what is missing and how to get it.
func needNode(t *testing.T) string {
	t.Helper()
	node := nodetest.Need(t, ".", "clients/opencode-plugin", "the opencode plugin's suites", "capnweb", "ws", "typescript", "@sharevat/client")
	nodetest.Need(t, clientDir, "clients/typescript", "the plugin's @sharevat/client build", "capnweb", "ws", "typescript")
	built.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		built.out, built.err = exec.CommandContext(ctx, node, filepath.Join(clientDir, "node_modules", "typescript", "bin", "tsc"), "-p", clientDir).CombinedOutput()
	})
	require.NoError(t, built.err, "building @sharevat/client (tsc -p clients/typescript):\n%s", built.out)
	return node
}

// clientDir is the @sharevat/client package the plugin depends on.
var clientDir = filepath.Join("..", "typescript")

// built is the one compile of clientDir per test binary.
var built struct {
	sync.Once
	out []byte
	err error
}

// mintCreationToken mints a creation token of srv's opencode door with
// the CLI, as an operator does, and returns the file it is written to.
func mintCreationToken(t *testing.T, srv *proctest.Server) string {
	t.Helper()
	out, err := exec.Command(server.Binary(t), "opencode-token", "mint", "--server", srv.URL,
		"--token-file", filepath.Join(srv.Data, "admin.token"), "--name", "plugin", "--json").Output()
	require.NoError(t, err, "%s", out)
	var m struct{ Token string }
	require.NoError(t, json.Unmarshal(out, &m), "%s", out)
	require.NotEmpty(t, m.Token, "%s", out)
	file := filepath.Join(t.TempDir(), "creation.token")
	require.NoError(t, os.WriteFile(file, []byte(m.Token+"\n"), 0o600))
	return file
}

// TestTypeCheck runs `tsc --noEmit -p .` over src/ and bin/.
func TestTypeCheck(t *testing.T) {
	node := needNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", ".").CombinedOutput()
	require.NoError(t, err, "tsc --noEmit -p clients/opencode-plugin:\n%s", out)
}

// TestNodeSuite runs test/*.test.mjs against a real server.
func TestNodeSuite(t *testing.T) {
	node := needNode(t)
	files, err := filepath.Glob(filepath.Join("test", "*.test.mjs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)

	srv := proctest.StartServe(t, server.Binary(t))
	base := strings.TrimSuffix(srv.URL, "/rpc")
	base = "http" + strings.TrimPrefix(base, "ws")

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--test", "--test-timeout=120000"}, files...)...)
	cmd.Env = append(os.Environ(),
		"SHAREVAT_TEST_URL="+base,
		"SHAREVAT_CREATION_TOKEN_FILE="+mintCreationToken(t, srv),
		"SHAREVAT_BIN="+server.Binary(t), // test/vatkill.test.mjs starts and SIGKILLs its own vat
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test failed (%v):\n%s\nserver log:\n%s", err, out, srv.Log)
	}
	pass, fail := count(out, "pass"), count(out, "fail")
	t.Logf("Node suite: %s passed, %s failed (%d files)", pass, fail, len(files))
	require.Equal(t, "0", fail, "%s", out)
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

// server is the sharevat binary the tests share.
var server = proctest.Once{PkgDir: filepath.Join("..", "..", "cmd", "sharevat")}

// TestMain gives each opencode command more time than the harness's
// default (these tests run opencode with the plugin on a machine that may
// be shared and slow) and removes the shared server binary.
func TestMain(m *testing.M) {
	opencodetest.RunTimeout = 6 * time.Minute
	code := m.Run()
	server.Cleanup()
	os.Exit(code)
}
