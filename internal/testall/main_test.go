package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// runFixture runs testall on testdata/fixture, a module of its own.
func runFixture(t *testing.T, require bool, env ...string) (string, int) {
	t.Helper()
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	var out, errw bytes.Buffer
	args := []string{"-count=1", "./..."}
	if os.Getenv("FIXTURE_HANG") == "1" {
		args = append([]string{"-timeout", "2s"}, args...)
	}
	code := run("testdata/fixture", args, &out, &errw, require)
	return out.String() + errw.String(), code
}

// TestSummary: a passing run prints go test's package line, names the
// suite skipped for a missing toolchain with its message (once, with its
// test count), leaves out an ordinary skip, and ends with the counts.
func TestSummary(t *testing.T) {
	out, code := runFixture(t, false)
	assert.Equal(t, 0, code, out)
	assert.Regexp(t, `(?m)^ok  \tfixture\t`, out)
	assert.Contains(t, out, "suites skipped for a missing toolchain")
	assert.Equal(t, 1, strings.Count(out, "chromium not installed"), out)
	assert.Contains(t, out, "  fixture (2 tests): chromium not installed: the browser test did not run\n")
	assert.NotContains(t, out, "a long test")
	assert.NotContains(t, out, "=== RUN")
	assert.True(t, strings.HasSuffix(out, "tests: 3 passed, 0 failed, 3 skipped\n"), out)
}

// TestRequireSuites: with SHAREVAT_REQUIRE_SUITES, a toolchain skip
// fails the run.
func TestRequireSuites(t *testing.T) {
	out, code := runFixture(t, true)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL: SHAREVAT_REQUIRE_SUITES=1")
}

// TestFailure: a failing test's output is printed without the progress
// lines, the package line says FAIL, and the exit code is go test's.
func TestFailure(t *testing.T) {
	out, code := runFixture(t, false, "FIXTURE_FAIL=1")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "what the failing test said")
	assert.Contains(t, out, "--- FAIL: TestFails")
	assert.Regexp(t, `(?m)^FAIL\tfixture\t`, out)
	assert.NotContains(t, out, "=== RUN")
	assert.Contains(t, out, "tests: 2 passed, 1 failed, 3 skipped\n")
}

// TestTimeout: a package that times out shows the panic and what the
// test that never ended printed.
func TestTimeout(t *testing.T) {
	out, code := runFixture(t, false, "FIXTURE_HANG=1")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "what the hanging test said")
	assert.Contains(t, out, "panic: test timed out")
	assert.Regexp(t, `(?m)^FAIL\tfixture\t`, out)
}
