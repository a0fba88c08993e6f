package main_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/proctest"
)

// TestTailRidesThroughRestarts runs `sharevat tail` as a process against
// a server process that is SIGKILLed and restarted on the same data
// directory and port, three times; ops are appended before each kill and
// right after each restart (before the tail can have reconnected).
// Invariants: the tail prints every acked op exactly once, in cursor
// order, with its acked cursor; it says on stderr when it is disconnected
// and when it resumes; SIGINT then ends it with exit code 0.
func TestTailRidesThroughRestarts(t *testing.T) {
	data := t.TempDir()
	srv, addr := serveAtFreePort(t, data)
	owner := createShare(t, srv)
	acked := map[string]sharevat.Cursor{}
	appendAndRecord(t, srv.URL, owner, 0, 2, 10, acked)
	tl := startTail(t, srv.URL, owner)
	tl.waitLines(t, len(acked))
	for round := 1; round <= 3; round++ {
		appendAndRecord(t, srv.URL, owner, round, 2, 10, acked)
		srv.Kill()
		srv = restartAt(t, data, addr)
		appendAndRecord(t, srv.URL, owner, 100+round, 1, 5, acked)
		tl.waitLines(t, len(acked))
	}
	require.NoError(t, tl.cmd.Process.Signal(os.Interrupt))
	assert.Equal(t, 0, tl.exitCode(t), "SIGINT is a normal end: %s", tl.stderr)

	lines := tl.all()
	require.Len(t, lines, len(acked), "every acked op printed once, nothing else")
	for i, l := range lines {
		assert.Equal(t, uint64(i+1), l.Cursor, "line %d in cursor order", i)
		assert.Equal(t, uint64(acked[l.OpID]), l.Cursor, "op %s at its acked cursor", l.OpID)
	}
	notes := tl.stderr.String()
	assert.Regexp(t, `(?m)^sharevat: disconnected \(.+\); resuming after cursor \d+$`, notes, "tail says it lost the server")
	assert.GreaterOrEqual(t, len(regexp.MustCompile(`(?m)^sharevat: resumed after cursor \d+$`).FindAllString(notes, -1)), 3,
		"and says each time it resumed: %s", notes)
	t.Logf("%d ops tailed across 3 SIGKILL restarts", len(lines))
}

// TestTailRevokedExits3: a tail on a read-only grant ends when the owner
// revokes the grant. Invariants: exit code 3, one clear line on stderr
// that says revoked and holds no token; the ops before were printed.
func TestTailRevokedExits3(t *testing.T) {
	srv := startServer(t, t.TempDir())
	owner := createShare(t, srv)
	ctx := context.Background()
	conn, err := client.Dial(ctx, srv.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, owner)
	require.NoError(t, err)
	m, err := sh.Grant(ctx, sharevat.ScopeRead, 0, "tail")
	require.NoError(t, err)
	acked := map[string]sharevat.Cursor{}
	appendAndRecord(t, srv.URL, owner, 0, 1, 3, acked)

	tl := startTail(t, srv.URL, m.Token)
	tl.waitLines(t, 3)
	require.NoError(t, sh.Revoke(ctx, m.GrantID))
	assert.Equal(t, 3, tl.exitCode(t), "revoked exits 3")
	msg := strings.TrimSpace(tl.stderr.String())
	assert.Equal(t, 1, strings.Count(msg, "\n")+1, "one line: %q", msg)
	assert.Contains(t, msg, "revoked")
	assert.NotContains(t, msg, "svt1_", "no token in the error")
	assert.Len(t, tl.all(), 3)
}

// tailProc is a running `sharevat tail`.
type tailProc struct {
	cmd    *exec.Cmd
	lines  chan tailLine // every stdout line, closed at EOF
	seen   []tailLine
	stderr *proctest.Log
	done   chan struct{}
	err    error // cmd.Wait's, once done is closed
}

type tailLine struct {
	Cursor uint64 `json:"cursor"`
	OpID   string `json:"op_id"`
}

func startTail(t *testing.T, url, token string) *tailProc {
	t.Helper()
	cmd := exec.Command(binary, "tail", "--server", url)
	cmd.Env = append(os.Environ(), "SHAREVAT_TOKEN="+token)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	tl := &tailProc{cmd: cmd, lines: make(chan tailLine, 1<<12), stderr: &proctest.Log{}, done: make(chan struct{})}
	cmd.Stderr = logWriter{tl.stderr}
	require.NoError(t, cmd.Start())
	go tl.read(t, stdout)
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGKILL)
		<-tl.done
	})
	return tl
}

// read parses stdout until EOF, then reaps the process.
func (tl *tailProc) read(t *testing.T, stdout interface{ Read([]byte) (int, error) }) {
	defer close(tl.done)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var l tailLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Errorf("tail printed a line that is not JSON: %q", sc.Text())
			continue
		}
		tl.lines <- l
	}
	close(tl.lines)
	tl.err = tl.cmd.Wait()
}

// waitLines reads lines until n were printed in all.
func (tl *tailProc) waitLines(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for len(tl.seen) < n {
		select {
		case l, ok := <-tl.lines:
			if !ok {
				t.Fatalf("tail exited after %d of %d lines: %s", len(tl.seen), n, tl.stderr)
			}
			tl.seen = append(tl.seen, l)
		case <-deadline:
			t.Fatalf("tail printed %d of %d lines:\n%s", len(tl.seen), n, tl.stderr)
		}
	}
}

// exitCode waits for the process to exit and returns its code.
func (tl *tailProc) exitCode(t *testing.T) int {
	t.Helper()
	select {
	case <-tl.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("tail did not exit:\n%s", tl.stderr)
	}
	var ee *exec.ExitError
	if errors.As(tl.err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, tl.err)
	return 0
}

// all returns every line printed, once the process exited.
func (tl *tailProc) all() []tailLine {
	<-tl.done
	for l := range tl.lines {
		tl.seen = append(tl.seen, l)
	}
	return tl.seen
}

type logWriter struct{ l *proctest.Log }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.Add(strings.TrimSuffix(string(p), "\n"))
	return len(p), nil
}

// serveAtFreePort starts a server on a port that was free a moment ago,
// trying another if it is taken by then, and returns it with its address.
func serveAtFreePort(t *testing.T, data string) (*server, string) {
	t.Helper()
	for attempt := 0; attempt < 5; attempt++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		addr := ln.Addr().String()
		ln.Close()
		if s, err := tryServeAt(t, data, addr); err == nil {
			return s, addr
		} else {
			t.Logf("start on %s: %v", addr, err)
		}
	}
	t.Fatal("no free port to serve on")
	return nil, ""
}

// restartAt starts the server again on the same address. The killed
// server's socket is closed by the kernel at exit, so the first attempt
// normally binds; a few retries cover another process grabbing the port
// for a moment.
func restartAt(t *testing.T, data, addr string) *server {
	t.Helper()
	for attempt := 0; attempt < 10; attempt++ {
		s, err := tryServeAt(t, data, addr)
		if err == nil {
			return s
		}
		t.Logf("restart on %s: %v", addr, err)
		time.Sleep(200 * time.Millisecond) // a pause between bind attempts, not synchronization
	}
	t.Fatalf("could not restart on %s", addr)
	return nil
}

// tryServeAt is startServer on a fixed address, returning an error
// instead of failing when the server exits before serving.
func tryServeAt(t *testing.T, data, addr string) (*server, error) {
	t.Helper()
	s, err := proctest.Start(t, binary, nil, "serve", "--listen", addr, "--data", data, "--log-level", "debug")
	if err != nil {
		return nil, err
	}
	return s, nil
}
