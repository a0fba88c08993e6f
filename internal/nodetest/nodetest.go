// Package nodetest finds the Node.js toolchain for the Go tests that run
// a Node package's suite against a real vat (interop/, interop/capnweb,
// interop/mcp, clients/typescript, clients/opencode-plugin). A missing
// toolchain skips the test with a message starting "NOTICE:", which
// internal/testall lists and, under SHAREVAT_REQUIRE_SUITES=1 (as CI sets
// it), fails the run on; here it fails the test at once as well. Only
// tests import it.
package nodetest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Need returns node's path once each of deps is installed in the
// node_modules of the Node package at dir (relative to the test's
// directory, "." for the test's own); otherwise it calls Missing, naming
// what is missing, the suite that did not run, and the package's path
// in the repository (repoPath) to run `npm ci` in.
func Need(t testing.TB, dir, repoPath, suite string, deps ...string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		Missing(t, "node is not on PATH: "+suite+" did not run; install Node.js >= 20 and run `(cd "+repoPath+" && npm ci)`")
	}
	for _, dep := range deps {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", dep, "package.json")); err != nil {
			Missing(t, repoPath+"/node_modules/"+dep+" is missing: "+suite+" did not run; run `(cd "+repoPath+" && npm ci)`")
		}
	}
	return node
}

// Missing skips t with "NOTICE: " and msg, or fails it when
// SHAREVAT_REQUIRE_SUITES=1 (every toolchain was installed, so a missing
// one is a failure).
func Missing(t testing.TB, msg string) {
	t.Helper()
	msg = "NOTICE: " + msg
	if os.Getenv("SHAREVAT_REQUIRE_SUITES") == "1" {
		t.Fatal(msg + " (SHAREVAT_REQUIRE_SUITES=1: a missing toolchain fails)")
	}
	t.Skip(msg)
}

// Tsc runs the TypeScript compiler pinned in dir's node_modules with
// args (e.g. "--noEmit", "-p", dir), within limit, and fails t with its
// output if it fails.
func Tsc(t testing.TB, node, dir string, limit time.Duration, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	args = append([]string{filepath.Join(dir, "node_modules", "typescript", "bin", "tsc")}, args...)
	out, err := exec.CommandContext(ctx, node, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("tsc %v: %v\n%s", args[1:], err, out)
	}
}
