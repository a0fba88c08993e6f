// Package proctest holds helpers for tests that run the real sharevat
// binary: building it, starting `sharevat serve` and waiting until it
// serves, reading its log while it runs, and stopping it. Only tests
// import it.
package proctest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Build builds the sharevat command in pkgDir (with the race detector
// when race is set) into a new temporary directory and returns the
// binary's path and that directory, which the caller removes.
func Build(pkgDir string, race bool) (bin, dir string, err error) {
	dir, err = os.MkdirTemp("", "sharevat-bin")
	if err != nil {
		return "", "", err
	}
	bin = filepath.Join(dir, "sharevat")
	args := []string{"build"}
	if race {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, "-o", bin, ".")...)
	cmd.Dir = pkgDir
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", dir, fmt.Errorf("go build sharevat: %v\n%s", err, out)
	}
	return bin, dir, nil
}

// Log is a process's stderr, safe to read while the process writes.
type Log struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{} // closed and replaced by every Add
}

// Add appends one line.
func (l *Log) Add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(line + "\n")
	if l.changed != nil {
		close(l.changed)
	}
	l.changed = make(chan struct{})
}

// WaitFor waits up to d for the log to contain substr, and reports
// whether it does: a server may log a failure after it has answered it.
func (l *Log) WaitFor(substr string, d time.Duration) bool {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		l.mu.Lock()
		found := strings.Contains(l.b.String(), substr)
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		l.mu.Unlock()
		if found {
			return true
		}
		select {
		case <-changed:
		case <-deadline.C:
			return false
		}
	}
}

func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Server is a running `sharevat serve` process.
type Server struct {
	Cmd  *exec.Cmd
	URL  string // where it serves, from "sharevat: serving on URL"
	Data string // the value of --data in its arguments, if any
	Log  *Log   // its stderr

	done chan struct{}
	err  error // Cmd.Wait's, once done is closed
}

// Start runs `bin args...` with env added to the test's environment and
// returns once it printed "sharevat: serving on URL". When the process
// exits before that, Start returns the Server (its Log holds what it
// printed) and an error. It fails tb when the server neither serves nor
// exits within 60 s. The process is SIGKILLed at cleanup.
func Start(tb testing.TB, bin string, env []string, args ...string) (*Server, error) {
	tb.Helper()
	return StartIn(tb, "", bin, env, args...)
}

// StartIn is Start with the process's working directory set to dir (""
// for the test's own).
func StartIn(tb testing.TB, dir, bin string, env []string, args ...string) (*Server, error) {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	s := &Server{Cmd: cmd, Log: &Log{}, done: make(chan struct{})}
	for i, a := range args {
		if a == "--data" && i+1 < len(args) {
			s.Data = args[i+1]
		}
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	urls := make(chan string, 1)
	go s.scan(stderr, urls)
	tb.Cleanup(s.Kill)
	select {
	case s.URL = <-urls:
		return s, nil
	case <-s.done:
		return s, fmt.Errorf("server exited before serving (%v): %s", cmd.ProcessState, strings.TrimSpace(s.Log.String()))
	case <-time.After(60 * time.Second):
		tb.Fatalf("server did not start:\n%s", s.Log)
		return nil, nil
	}
}

// scan records stderr line by line, sends the URL the server serves on,
// and reaps the process at EOF.
func (s *Server) scan(r io.Reader, urls chan<- string) {
	defer close(s.done)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		s.Log.Add(line)
		if u, ok := strings.CutPrefix(line, "sharevat: serving on "); ok {
			urls <- u
		}
	}
	_, _ = io.Copy(io.Discard, r) // past an overlong line: never block the server
	s.err = s.Cmd.Wait()
}

// Kill SIGKILLs the server and waits for it to be gone.
func (s *Server) Kill() {
	_ = s.Cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// Stop asks the server to shut down (SIGTERM) and waits, failing tb when
// it is still running after 30 s.
func (s *Server) Stop(tb testing.TB) {
	tb.Helper()
	if err := s.Cmd.Process.Signal(syscall.SIGTERM); err != nil {
		tb.Fatal(err)
	}
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		tb.Fatalf("server did not stop on SIGTERM:\n%s", s.Log)
	}
}

// Done is closed when the process has exited.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is the process's exit error (nil for exit code 0), once Done is
// closed.
func (s *Server) Err() error {
	<-s.done
	return s.err
}
