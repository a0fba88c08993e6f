package main_test

import (
	"bufio"
	"context"
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

	"github.com/stretchr/testify/require"
)

// binary is the sharevat executable built once for the process tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sharevat-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "sharevat")
	build := exec.Command("go", "build", "-race", "-o", binary, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build sharevat:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// server is a real `sharevat serve` process.
type server struct {
	cmd  *exec.Cmd
	URL  string
	Data string
	done chan struct{}
	log  *syncLog
}

// syncLog is the server's stderr, safe to read while the server writes.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(line + "\n")
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServer runs `sharevat serve` on a free loopback port and waits for
// it to say where it serves.
func startServer(t *testing.T, data string, extra ...string) *server {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "debug"}, extra...)
	cmd := exec.Command(binary, args...)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	s := &server{cmd: cmd, Data: data, done: make(chan struct{}), log: &syncLog{}}
	urls := make(chan string, 1)
	go s.scan(stderr, urls)
	t.Cleanup(func() { s.kill() })
	select {
	case s.URL = <-urls:
	case <-s.done:
		t.Fatalf("server exited before serving: %v\n%s", cmd.ProcessState, s.log)
	case <-time.After(60 * time.Second):
		t.Fatalf("server did not start:\n%s", s.log)
	}
	return s
}

func (s *server) scan(r io.Reader, urls chan<- string) {
	defer close(s.done)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		s.log.add(line)
		if u, ok := strings.CutPrefix(line, "sharevat: serving on "); ok {
			urls <- u
		}
	}
	s.cmd.Wait()
}

// kill SIGKILLs the server and waits for it to be gone.
func (s *server) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// stop asks the server to shut down (SIGTERM) and waits.
func (s *server) stop(t *testing.T) {
	t.Helper()
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("server did not stop on SIGTERM:\n%s", s.log)
	}
}

// cli runs the sharevat binary as a user would and returns its stdout,
// stderr and exit code.
func cli(t *testing.T, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	// A state dir of the test's own (env may override it), and no 1 s
	// race-detector sleep at every exit.
	cmd.Env = append(os.Environ(), "SHAREVAT_STATE="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
	cmd.Env = append(cmd.Env, env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return out.String(), errb.String(), code
}
