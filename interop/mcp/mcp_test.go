// Package mcpinterop_test proves that the official MCP TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json) can use sharevat's
// MCP server (docs/mcp.md) on both of its transports: TestNodeSuite
// builds the real binary, runs `sharevat serve` on a fresh data directory
// and runs the Node suite (test/*.test.mjs), which launches `sharevat
// mcp` over stdio as an agent does and talks to /mcp over Streamable HTTP.
//
// It skips, with a loud NOTICE, when node or node_modules is missing (run
// `npm ci` here); CI installs them.
package mcpinterop_test

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
	return nodetest.Need(t, ".", "interop/mcp", "the MCP Node suite", "@modelcontextprotocol/sdk")
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
		"SHAREVAT_MCP_URL="+strings.Replace(base, "ws://", "http://", 1)+"/mcp",
		"SHAREVAT_RPC_URL="+srv.URL,
		"SHAREVAT_BIN="+bin,
		"SHAREVAT_ADMIN_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token"),
	)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test failed (%v):\n%s\nserver log:\n%s", err, out, srv.Log)
	}
	pass, fail := count(out, "pass"), count(out, "fail")
	t.Logf("Node suite: %s passed, %s failed (%d files)", pass, fail, len(files))
	require.Equal(t, "0", fail, "%s", out)
	require.NotEqual(t, "0", pass, "%s", out)
	require.Equal(t, "0", count(out, "todo"), "%s", out)
	require.Equal(t, "0", count(out, "skipped"), "%s", out)
}

// count returns the number node's TAP summary gives for name ("# pass 12").
func count(tap []byte, name string) string {
	m := regexp.MustCompile(`(?m)^# ` + name + ` (\d+)$`).FindSubmatch(tap)
	if m == nil {
		return "?"
	}
	return string(m[1])
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
