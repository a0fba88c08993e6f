package main_test

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/proctest"
)

// obFreeAddr picks a free loopback port for a server that must come back
// on the same address after each kill.
func obFreeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return addr
}

// obStartAt runs `sharevat serve` on addr, starting again when the port
// is momentarily taken, and waits until it serves.
func obStartAt(t *testing.T, data, addr string) *server {
	t.Helper()
	for attempt := 0; ; attempt++ {
		s, ok := obTryStart(t, data, addr)
		if ok {
			return s
		}
		if attempt == 20 || !strings.Contains(s.Log.String(), "address already in use") {
			t.Fatalf("server did not start on %s:\n%s", addr, s.Log)
		}
	}
}

func obTryStart(t *testing.T, data, addr string) (*server, bool) {
	s, err := proctest.Start(t, binary, nil, "serve", "--listen", addr, "--data", data, "--log-level", "warn")
	return s, err == nil
}

// obOutcome is how a process that the test meant to kill ended.
type obOutcome struct {
	killed bool // SIGKILL arrived before it finished
	code   int  // its exit code when it finished first
}

// obKillAfter runs the sharevat binary with stdin and env, SIGKILLs it
// after delay (random, chosen by the caller: it varies only when the kill
// lands) and waits for it to be gone.
func obKillAfter(t *testing.T, stdin string, env []string, delay time.Duration, args ...string) obOutcome {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return obOutcome{code: cmd.ProcessState.ExitCode()}
	case <-time.After(delay):
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-done
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return obOutcome{killed: true}
	}
	return obOutcome{code: cmd.ProcessState.ExitCode()}
}
