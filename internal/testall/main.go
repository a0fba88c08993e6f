// Command testall is the README's test command: it runs go test (by
// default `go test -race -timeout 30m ./...`: the process tests of
// cmd/sharevat take longer than go test's default 10 minutes on a busy
// 2-core machine; arguments replace those) and prints what
// go test prints without -v — a line per package, and the output of what
// failed — and then what `go test` alone leaves unsaid: which suites were
// skipped because a toolchain is missing (a skip whose message starts
// with "NOTICE:" or "SKIPPED LOUDLY:"), with what to install, and one
// closing line: "tests: N passed, N failed, N skipped".
//
// It exits as go test did, or 1 when SHAREVAT_REQUIRE_SUITES=1 (as CI
// sets it) and a suite was skipped for a missing toolchain.
//
//	go run ./internal/testall                 # go test -race ./...
//	go run ./internal/testall -run TestX ./vat
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	os.Exit(run("", os.Args[1:], os.Stdout, os.Stderr, os.Getenv("SHAREVAT_REQUIRE_SUITES") == "1"))
}

// run runs go test -json with args in dir ("": here) and reports on w;
// it returns the exit code.
func run(dir string, args []string, w, errw io.Writer, require bool) int {
	if len(args) == 0 {
		args = []string{"-race", "-timeout", "30m", "./..."}
	}
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Dir, cmd.Stderr = dir, errw
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(errw, "testall:", err)
		return 2
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(errw, "testall:", err)
		return 2
	}
	r := newReport(w)
	readErr := r.read(out)
	waitErr := cmd.Wait()
	if readErr != nil {
		fmt.Fprintln(errw, "testall: reading go test's output:", readErr)
	}
	r.summary()
	code := exitCode(waitErr)
	if code == 0 && readErr != nil {
		code = 2
	}
	if code == 0 && require && len(r.skips) > 0 {
		fmt.Fprintln(w, "FAIL: SHAREVAT_REQUIRE_SUITES=1 and the suites above were skipped")
		code = 1
	}
	return code
}

// exitCode is go test's exit code.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	return 2
}
