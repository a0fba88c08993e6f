package proctest

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// raceExit is the exit code a race-detector build is told to use when it
// found a race (GORACE exitcode), so that a race fails the test that ran
// it even when the log is cut short.
const raceExit = 66

// Once builds the sharevat command in pkgDir once per test binary.
// Binary builds it on first use; Cleanup (from TestMain, after m.Run)
// removes it.
type Once struct {
	PkgDir string // the command's directory, relative to the test
	Race   bool   // build with the race detector

	once sync.Once
	bin  string
	dir  string
	err  error
}

// Binary returns the built binary's path, building it on first use.
func (o *Once) Binary(tb testing.TB) string {
	tb.Helper()
	o.once.Do(func() { o.bin, o.dir, o.err = Build(o.PkgDir, o.Race) })
	if o.err != nil {
		tb.Fatal(o.err)
	}
	return o.bin
}

// Cleanup removes the built binary, if any.
func (o *Once) Cleanup() {
	if o.dir != "" {
		os.RemoveAll(o.dir)
	}
}

// StartServe runs `bin serve` on a free loopback port with a fresh data
// directory (and extra arguments), waits until it serves, and at cleanup
// stops it (SIGTERM; SIGKILL after 20 s) and fails tb if it reported a
// data race — also when it exited before serving.
func StartServe(tb testing.TB, bin string, extra ...string) *Server {
	tb.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", filepath.Join(tb.TempDir(), "data")}, extra...)
	s, err := Start(tb, bin, []string{"GORACE=atexit_sleep_ms=0 exitcode=66"}, args...)
	if err != nil {
		tb.Cleanup(func() { checkRace(tb, s) })
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		_ = s.Cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.Done():
		case <-time.After(20 * time.Second):
			s.Kill()
		}
		checkRace(tb, s)
	})
	return s
}

// checkRace fails tb if the exited server reported a data race.
func checkRace(tb testing.TB, s *Server) {
	if s == nil {
		return
	}
	var ee *exec.ExitError
	if (errors.As(s.Err(), &ee) && ee.ExitCode() == raceExit) || strings.Contains(s.Log.String(), "WARNING: DATA RACE") {
		tb.Errorf("the server reported a data race:\n%s", s.Log)
	}
}
