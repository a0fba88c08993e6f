package loadgen

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

// EchoHelperEnv, set (to anything) in the environment of the sharevat
// binary, makes the process the bench's echo helper (ServeEcho) instead
// of running its command line. The bench starts its own binary that way
// for the transport ceiling: a raw WebSocket echo between two processes.
const EchoHelperEnv = "SHAREVAT_BENCH_ECHO_HELPER"

// pingFrameBytes is the size of the binary WebSocket message a
// Vault.ping call is (its Cap'n Proto Call message as the transport
// marshals it: 112 bytes, counted in Encode), so an echo round trip
// carries the bytes a ping's call does.
const pingFrameBytes = 112

// ServeEcho is the echo helper: on a free loopback port it serves a
// WebSocket at /echo that sends every message back as it came, and GET
// /rusage, this process's CPU time so far in nanoseconds (getrusage,
// user + system). It prints "echo ADDR" on stdout, then serves until
// stdin reaches its end (the bench closes it, or dies). It returns the
// process's exit code.
func ServeEcho(stdin io.Reader, stdout io.Writer) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(stdout, "error", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", serveEchoConn)
	mux.HandleFunc("/rusage", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, int64(selfCPU()))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	fmt.Fprintln(stdout, "echo", ln.Addr())
	_, _ = io.Copy(io.Discard, stdin)
	_ = srv.Close()
	return 0
}

var echoUpgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveEchoConn sends every message of one connection back.
func serveEchoConn(w http.ResponseWriter, r *http.Request) {
	ws, err := echoUpgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	defer ws.Close()
	for {
		typ, b, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if err := ws.WriteMessage(typ, b); err != nil {
			return
		}
	}
}

// echoHelper is a running echo helper process.
type echoHelper struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string
}

// startEchoHelper starts exe as the echo helper and waits for its
// address.
func startEchoHelper(ctx context.Context, exe string) (*echoHelper, error) {
	cmd := exec.Command(exe)
	cmd.Env = append(cmd.Environ(), EchoHelperEnv+"=1")
	cmd.SysProcAttr = childProcAttr()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: echo helper: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("bench: echo helper: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("bench: start the echo helper: %w", err)
	}
	h := &echoHelper{cmd: cmd, stdin: stdin}
	addr := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(out).ReadString('\n')
		addr <- strings.TrimSpace(line)
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case a := <-addr:
		if rest, ok := strings.CutPrefix(a, "echo "); ok {
			h.addr = rest
			return h, nil
		}
		h.close()
		return nil, fmt.Errorf("bench: the echo helper did not start: %q", a)
	case <-ctx.Done():
		h.close()
		return nil, ctx.Err()
	}
}

// close ends the helper (its stdin closes) and waits for it.
func (h *echoHelper) close() {
	_ = h.stdin.Close()
	done := make(chan struct{})
	go func() { _ = h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(childStopTimeout):
		_ = h.cmd.Process.Signal(syscall.SIGKILL)
		<-done
	}
}

// cpu is the helper's CPU time so far.
func (h *echoHelper) cpu(ctx context.Context) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+h.addr+"/rusage", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, fmt.Errorf("bench: echo helper: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("bench: echo helper: %w", err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return time.Duration(ns), err
}

// echoConn is one WebSocket connection to the helper.
type echoConn struct {
	ws  *websocket.Conn
	msg []byte
}

// dial opens one connection to the helper.
func (h *echoHelper) dial(ctx context.Context) (*echoConn, error) {
	ws, resp, err := websocket.DefaultDialer.DialContext(ctx, "ws://"+h.addr+"/echo", nil)
	if err != nil {
		return nil, fmt.Errorf("bench: dial the echo helper: %w", err)
	}
	resp.Body.Close()
	return &echoConn{ws: ws, msg: make([]byte, pingFrameBytes)}, nil
}

var errEchoMismatch = errors.New("bench: the echo helper sent back something else")

// roundTrip sends one message and reads its echo.
func (c *echoConn) roundTrip() error {
	if err := c.ws.WriteMessage(websocket.BinaryMessage, c.msg); err != nil {
		return fmt.Errorf("bench: echo: %w", err)
	}
	_, r, err := c.ws.NextReader()
	if err != nil {
		return fmt.Errorf("bench: echo: %w", err)
	}
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return fmt.Errorf("bench: echo: %w", err)
	}
	if n != int64(len(c.msg)) {
		return errEchoMismatch
	}
	return nil
}

func (c *echoConn) close() {
	if c != nil {
		_ = c.ws.Close()
	}
}
