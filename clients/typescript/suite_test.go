// Package tsclient_test runs the TypeScript client's suites (the package
// in this directory, @sharevat/client) against a real `sharevat serve`:
//
//   - TestNodeSuite: compiles the package (tsc → dist/) and runs
//     `node --test test/node/` on the compiled JS.
//   - TestBunSuite: runs `bun test test/bun` with the Bun pinned in
//     package.json (installed from npm).
//   - TestBrowserClient (browser_test.go): the compiled package in
//     headless Chromium, imported by a page through an import map.
//
// Each test starts a vat on a fresh data directory and a fault proxy
// (internal/faultproxy) in front of it, which the suites steer over a
// small HTTP control endpoint. A missing toolchain (node, node_modules,
// bun) skips with a NOTICE, or fails when SHAREVAT_REQUIRE_SUITES=1, as CI
// sets it. See README.md, "Tests".
package tsclient_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/faultproxy"
	"github.com/sharevat/sharevat/internal/nodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// needNode returns node's path once the package's node_modules are there.
func needNode(t *testing.T) string {
	t.Helper()
	return nodetest.Need(t, ".", "clients/typescript", "the TypeScript client's suite", "capnweb", "ws", "typescript", "bun")
}

// compile builds the package into dist/ with the pinned TypeScript.
func compile(t *testing.T, node string) {
	t.Helper()
	nodetest.Tsc(t, node, ".", 3*time.Minute, "-p", ".")
}

// vatEnv starts a vat and a fault proxy in front of it and returns the
// environment the suites read (test/node/helpers.mjs).
func vatEnv(t *testing.T) []string {
	t.Helper()
	bin := server.Binary(t)
	srv := proctest.StartServe(t, bin)
	base := strings.TrimSuffix(srv.URL, "/rpc")
	require.NotEqual(t, base, srv.URL, "the server's URL %q does not end in /rpc", srv.URL)
	host := strings.TrimPrefix(base, "ws://")
	proxy, err := faultproxy.New(host)
	require.NoError(t, err)
	t.Cleanup(func() { _ = proxy.Close() })
	control := faultControl(t, proxy)
	return append(os.Environ(),
		"SHAREVAT_CAPNWEB_URL="+base+"/capnweb",
		"SHAREVAT_RPC_URL="+srv.URL,
		"SHAREVAT_BIN="+bin,
		"SHAREVAT_ADMIN_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token"),
		"SHAREVAT_FAULT_URL=ws://"+proxy.Addr()+"/capnweb",
		"SHAREVAT_FAULT_CONTROL="+control,
	)
}

// faultControl serves the proxy's switches on loopback: POST /drop?on=1
// (or 0) discards (or passes) what the vat sends, /cut closes every
// connection, /reset does both off; /accepted answers the number of
// connections accepted so far.
func faultControl(t *testing.T, p *faultproxy.Proxy) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /drop", func(w http.ResponseWriter, r *http.Request) {
		p.DropServerToClient(r.URL.Query().Get("on") == "1")
	})
	mux.HandleFunc("POST /cut", func(http.ResponseWriter, *http.Request) { p.Cut() })
	mux.HandleFunc("POST /reset", func(http.ResponseWriter, *http.Request) { p.Reset() })
	mux.HandleFunc("GET /accepted", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, p.Accepted()) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

// run runs a suite command with env and fails t with its output (and
// the server's log) unless it passed.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
	return string(out)
}

// TestNodeSuite compiles the package and runs test/node/*.test.mjs with
// node's test runner on the compiled JS against a real vat.
func TestNodeSuite(t *testing.T) {
	node := needNode(t)
	compile(t, node)
	files, err := filepath.Glob(filepath.Join("test", "node", "*.test.mjs"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	args := append([]string{"--test", "--test-timeout=240000", "--test-concurrency=1"}, files...)
	out := run(t, vatEnv(t), node, args...)
	pass, fail := count(out, "pass"), count(out, "fail")
	t.Logf("Node suite: %s passed, %s failed (%d files)", pass, fail, len(files))
	require.Equal(t, "0", fail, "%s", out)
	require.Equal(t, "0", count(out, "todo"), "%s", out)
	require.NotEqual(t, "0", pass, "%s", out)
}

// TestBunSuite runs test/bun/*.test.ts under the pinned Bun against a
// real vat (Bun runs the TypeScript sources as they are).
func TestBunSuite(t *testing.T) {
	node := needNode(t)
	bun := filepath.Join("node_modules", ".bin", "bun")
	if out, err := exec.Command(bun, "--version").CombinedOutput(); err != nil {
		nodetest.Missing(t, fmt.Sprintf("the bun package's binary does not run here (%v: %s): the TypeScript client's Bun suite did not run; run `(cd clients/typescript && npm ci)`", err, out))
	}
	compile(t, node)
	out := run(t, vatEnv(t), bun, "test", "--timeout", "120000", "./test/bun/")
	t.Logf("Bun suite:\n%s", lastLines(out, 4))
	require.Regexp(t, regexp.MustCompile(`(?m)^\s*0 fail$`), out)
}

// count returns the number node's TAP summary gives for name ("# pass 12").
func count(tap, name string) string {
	m := regexp.MustCompile(`(?m)^# ` + name + ` (\d+)$`).FindStringSubmatch(tap)
	if m == nil {
		return "?"
	}
	return m[1]
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// server is the sharevat binary the tests share, built with the race
// detector so the server is checked for races under this client.
var server = proctest.Once{PkgDir: filepath.Join("..", "..", "cmd", "sharevat"), Race: true}

// TestMain removes the shared server binary.
func TestMain(m *testing.M) {
	code := m.Run()
	server.Cleanup()
	os.Exit(code)
}
