// Package outboxts_test runs the TypeScript outbox's suites (the *.test.mjs
// files beside it: behaviour, file, crash, interop) against a real
// `sharevat serve` that the suites start themselves from the binary this
// driver builds (SHAREVAT_BIN): under Node (node --test) and under Bun
// (bun test, which runs the same node:test files and adds the bun:sqlite
// backend). Both skip with a NOTICE when node or the package's
// node_modules is missing (run `npm ci` in clients/typescript), or fail
// then under SHAREVAT_REQUIRE_SUITES=1, as CI sets it. The package is
// compiled first (tsc).
package outboxts_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharevat/sharevat/internal/nodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// pkgDir is the TypeScript package, relative to this directory.
const pkgDir = "../.."

// needNode returns node's path after compiling the package, or skips the
// test with a notice saying what is missing.
func needNode(t *testing.T) string {
	t.Helper()
	node := nodetest.Need(t, pkgDir, "clients/typescript", "the TypeScript outbox suites", "capnweb", "ws", "typescript", "bun")
	nodetest.Tsc(t, node, pkgDir, 3*time.Minute, "-p", filepath.Join(pkgDir, "tsconfig.json"))
	return node
}

// run runs a command with SHAREVAT_BIN set and fails t with its output if
// it fails.
func run(t *testing.T, limit time.Duration, name string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), "SHAREVAT_BIN="+server.Binary(t))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v failed (%v):\n%s", name, args, err, out)
	}
	return string(out)
}

func suites(t *testing.T) []string {
	files, err := filepath.Glob("*.test.mjs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no *.test.mjs here (%v)", err)
	}
	return files
}

// TestOutboxNode runs the suites under Node.
func TestOutboxNode(t *testing.T) {
	node := needNode(t)
	args := append([]string{"--test", "--test-concurrency=1", "--test-timeout=900000"}, suites(t)...)
	t.Log(run(t, 20*time.Minute, node, args...))
}

// TestOutboxBun runs the suites under Bun (installed from npm), where the
// bun:sqlite backend runs too.
func TestOutboxBun(t *testing.T) {
	needNode(t)
	bun := filepath.Join(pkgDir, "node_modules", "bun", "bin", "bun.exe")
	args := append([]string{"test", "--timeout", "900000"}, suites(t)...)
	for i, f := range args[3:] {
		args[3+i] = "./" + f
	}
	t.Log(run(t, 20*time.Minute, bun, args...))
}

// server is the sharevat binary the suites start, built without the race
// detector: the crash suite runs 20,000 ops twice through killed processes.
var server = proctest.Once{PkgDir: filepath.Join("..", "..", "..", "..", "cmd", "sharevat")}

// TestMain removes the built binary.
func TestMain(m *testing.M) {
	code := m.Run()
	server.Cleanup()
	os.Exit(code)
}
