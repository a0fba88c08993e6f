package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent, and
// the build events go test adds).
type event struct {
	Action     string
	Package    string
	ImportPath string // build-output, build-fail
	Test       string
	Output     string
}

// report turns go test's events into what go test prints without -v,
// and keeps the counts and the toolchain skips for the summary.
type report struct {
	w                       io.Writer
	buf                     map[string][]string // output of each running test, and of each package ("")
	passed, failed, skipped int                 // top-level tests
	skips                   map[string]*skip    // package and message → the tests it skipped
}

// skip is one reason a package's tests were skipped for a missing
// toolchain.
type skip struct {
	pkg, msg string
	tests    int
}

func newReport(w io.Writer) *report {
	return &report{w: w, buf: map[string][]string{}, skips: map[string]*skip{}}
}

// read consumes the events of r until EOF. A line that is not an event
// (go test's own messages) is printed as it is.
func (r *report) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			fmt.Fprintln(r.w, sc.Text())
			continue
		}
		r.handle(&e)
	}
	return sc.Err()
}

func (r *report) handle(e *event) {
	key := e.Package + "\x00" + e.Test
	switch e.Action {
	case "build-output":
		fmt.Fprint(r.w, e.Output)
	case "output":
		r.buf[key] = append(r.buf[key], e.Output)
	case "pass", "fail", "skip":
		if e.Test == "" {
			if e.Action == "fail" {
				r.unfinished(e.Package)
			}
			r.packageDone(e.Package, e.Action == "fail", r.buf[key])
		} else {
			r.testDone(e, r.buf[key])
		}
		delete(r.buf, key)
	}
}

// testDone counts a finished test, prints a failed one's output, and
// notes a toolchain skip.
func (r *report) testDone(e *event, out []string) {
	top := !strings.Contains(e.Test, "/")
	switch e.Action {
	case "fail":
		r.failed += btoi(top)
		printLines(r.w, out)
	case "skip":
		r.skipped += btoi(top)
		if msg := notice(out); msg != "" {
			r.noteSkip(e.Package, msg, btoi(top))
		}
	default:
		r.passed += btoi(top)
	}
}

// unfinished prints the output of the package's tests that never ended
// (a timeout's panic, a crash, os.Exit), and forgets it.
func (r *report) unfinished(pkg string) {
	var keys []string
	for k := range r.buf {
		if p, test, _ := strings.Cut(k, "\x00"); p == pkg && test != "" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		printLines(r.w, r.buf[k])
		delete(r.buf, k)
	}
}

// packageDone prints a package's line ("ok", "?", "FAIL"), and, when it
// failed, what it printed outside any test.
func (r *report) packageDone(pkg string, failed bool, out []string) {
	for _, l := range out {
		if msg := notice([]string{l}); msg != "" {
			r.noteSkip(pkg, msg, 0)
		}
		if failed || strings.HasPrefix(l, "ok  ") || strings.HasPrefix(l, "?   ") || strings.HasPrefix(l, "FAIL") {
			printLines(r.w, []string{l})
		}
	}
}

func (r *report) noteSkip(pkg, msg string, tests int) {
	k := pkg + "\x00" + msg
	if r.skips[k] == nil {
		r.skips[k] = &skip{pkg: pkg, msg: msg}
	}
	r.skips[k].tests += tests
}

// summary prints the toolchain skips and the closing line.
func (r *report) summary() {
	if len(r.skips) > 0 {
		fmt.Fprintln(r.w, "\nsuites skipped for a missing toolchain (install it to run them; as root on Debian, `bash .ci/run` installs every one):")
		list := make([]*skip, 0, len(r.skips))
		for _, s := range r.skips {
			list = append(list, s)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].pkg+list[i].msg < list[j].pkg+list[j].msg })
		for _, s := range list {
			fmt.Fprintf(r.w, "  %s%s: %s\n", s.pkg, plural(s.tests), s.msg)
		}
	}
	fmt.Fprintf(r.w, "tests: %d passed, %d failed, %d skipped\n", r.passed, r.failed, r.skipped)
}

// notice returns the first loud skip message in out ("NOTICE: …" or
// "SKIPPED LOUDLY: …", after the file:line prefix the testing package
// adds), or "".
func notice(out []string) string {
	for _, l := range out {
		for _, mark := range []string{"NOTICE:", "SKIPPED LOUDLY:"} {
			if i := strings.Index(l, mark); i >= 0 {
				return strings.TrimSpace(l[i+len(mark):])
			}
		}
	}
	return ""
}

// printLines prints test output as go test does without -v: without the
// "=== RUN" family of progress lines.
func printLines(w io.Writer, out []string) {
	for _, l := range out {
		if !strings.HasPrefix(strings.TrimLeft(l, " "), "=== ") {
			fmt.Fprint(w, l)
		}
	}
}

func plural(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return " (1 test)"
	}
	return fmt.Sprintf(" (%d tests)", n)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
