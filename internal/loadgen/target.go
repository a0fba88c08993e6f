package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// benchTarget is the vat a bench drives: a child `sharevat serve` on a
// temporary directory (the default), or a running vat (Config.Server).
type benchTarget struct {
	URL        string // ws://…/rpc
	Metrics    string // http://…/metrics
	Child      bool   // started by the bench
	ceilingDir string // where the storage ceiling's file goes
	admin      string // the admin token
	exe        string // the sharevat binary, to start the echo helper; "" for none

	dir  string // child: temporary directory, removed by Close
	cmd  *exec.Cmd
	done chan struct{} // child: closed once it exited and its stderr is drained
	log  *tailLines
}

// Limits for the child vat: big enough for any batch the Config allows.
const (
	opOverhead        = 64 // op id, kind, seq: bytes of a batch per op besides its body
	childStartTimeout = 30 * time.Second
	childStopTimeout  = 15 * time.Second
	// childAdminFile is where serve writes the admin token in its data
	// directory (docs/design.md §8).
	childAdminFile = "admin.token"
)

// openTarget starts the bench's own vat, or connects to Config.Server.
func openTarget(ctx context.Context, cfg *Config) (*benchTarget, error) {
	open := externalTarget
	if cfg.Server == "" {
		open = func(cfg *Config) (*benchTarget, error) { return startChild(ctx, cfg) }
	}
	t, err := open(cfg)
	if err != nil {
		return nil, err
	}
	t.exe = cfg.Exe
	return t, nil
}

func externalTarget(cfg *Config) (*benchTarget, error) {
	tok, err := os.ReadFile(cfg.TokenFile)
	if err != nil {
		return nil, fmt.Errorf("token file: %w", err)
	}
	m, _ := metricsURL(cfg.Server)
	dir := cfg.CeilingDir
	if dir == "" {
		dir = os.TempDir()
	}
	return &benchTarget{URL: cfg.Server, Metrics: m, ceilingDir: dir, admin: strings.TrimSpace(string(tok))}, nil
}

// CheckServer reports why the bench would refuse to drive the vat at
// ws: anything but a ws:// or wss:// URL on a loopback host (the bench is
// for one's own machine).
func CheckServer(ws string) error {
	_, err := metricsURL(ws)
	return err
}

// metricsURL derives the /metrics URL from a vat's ws:// URL, and refuses
// anything but a loopback host.
func metricsURL(ws string) (string, error) {
	u, err := url.Parse(ws)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return "", fmt.Errorf("%q is not a ws:// or wss:// URL", ws)
	}
	if !isLoopback(u.Hostname()) {
		return "", fmt.Errorf("%s is not a loopback address; the bench only drives vats on this machine", u.Hostname())
	}
	scheme := map[string]string{"ws": "http", "wss": "https"}[u.Scheme]
	return scheme + "://" + u.Host + "/metrics", nil
}

// isLoopback reports whether host is "localhost" or a loopback IP
// address.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// startChild runs `<Config.Exe> serve` on a free loopback port, with a
// data directory in a new temporary directory, and waits until it serves.
func startChild(ctx context.Context, cfg *Config) (*benchTarget, error) {
	dir, err := os.MkdirTemp(cfg.CeilingDir, "sharevat-bench-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	t := &benchTarget{Child: true, dir: dir, ceilingDir: dir, done: make(chan struct{}), log: &tailLines{max: 20}}
	if err := t.start(ctx, cfg); err != nil {
		t.Close()
		return nil, err
	}
	return t, nil
}

func (t *benchTarget) start(ctx context.Context, cfg *Config) error {
	data := filepath.Join(t.dir, "data")
	t.cmd = exec.Command(cfg.Exe, childArgs(cfg, data)...)
	t.cmd.SysProcAttr = childProcAttr()
	stderr, err := t.cmd.StderrPipe()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := t.cmd.Start(); err != nil {
		close(t.done)
		return fmt.Errorf("bench: start the vat: %w", err)
	}
	urls := make(chan string, 1)
	go t.scan(stderr, urls)
	if err := t.waitServing(ctx, urls); err != nil {
		return err
	}
	tok, err := os.ReadFile(filepath.Join(data, childAdminFile))
	if err != nil {
		return fmt.Errorf("bench: admin token: %w", err)
	}
	t.admin = strings.TrimSpace(string(tok))
	t.Metrics, _ = metricsURL(t.URL)
	return nil
}

// childArgs are the serve flags: loopback, quiet, no per-address cap,
// limits that fit the largest batch the bench may send.
func childArgs(cfg *Config, data string) []string {
	// Every bench connection comes from 127.0.0.1: no per-address cap.
	args := []string{"serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "warn", "--max-conns-per-ip", "0"}
	args = append(args, cfg.serveArgs...)
	d := sharevat.DefaultLimits()
	if cfg.Body > d.MaxBodyBytes {
		args = append(args, "--max-body-bytes", strconv.Itoa(cfg.Body))
	}
	if cfg.Ops > d.MaxOpsPerBatch {
		args = append(args, "--max-batch-ops", strconv.Itoa(cfg.Ops))
	}
	if n := cfg.Ops * (cfg.Body + opOverhead); n > d.MaxBatchBytes {
		args = append(args, "--max-batch-bytes", strconv.Itoa(min(n, MaxBatchBytes)))
	}
	return args
}

func (t *benchTarget) waitServing(ctx context.Context, urls <-chan string) error {
	timer := time.NewTimer(childStartTimeout)
	defer timer.Stop()
	select {
	case t.URL = <-urls:
		return nil
	case <-t.done:
		return fmt.Errorf("bench: the vat exited before serving: %s", t.log)
	case <-timer.C:
		return fmt.Errorf("bench: the vat did not start within %s: %s", childStartTimeout, t.log)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// scan drains the child's stderr, keeping its last lines for errors, and
// reaps the child once the pipe closes.
func (t *benchTarget) scan(r io.Reader, urls chan<- string) {
	defer close(t.done)
	sc := bufio.NewScanner(r)
	sent := false
	for sc.Scan() {
		line := sc.Text()
		if u, ok := strings.CutPrefix(line, "sharevat: serving on "); ok && !sent {
			urls <- u
			sent = true
			continue
		}
		t.log.add(line)
	}
	_, _ = io.Copy(io.Discard, r)
	_ = t.cmd.Wait()
}

// Close stops the child (SIGTERM, then SIGKILL) and removes its
// directory. It does nothing to a running vat of Config.Server.
func (t *benchTarget) Close() error {
	if !t.Child {
		return nil
	}
	if t.cmd != nil && t.cmd.Process != nil {
		_ = t.cmd.Process.Signal(syscall.SIGTERM)
		timer := time.NewTimer(childStopTimeout)
		select {
		case <-t.done:
		case <-timer.C:
			_ = t.cmd.Process.Kill()
			<-t.done
		}
		timer.Stop()
	}
	return os.RemoveAll(t.dir)
}

// Exited reports whether the child vat died (a crash under load).
func (t *benchTarget) exited() error {
	if !t.Child {
		return nil
	}
	select {
	case <-t.done:
		return fmt.Errorf("bench: the vat exited: %s", t.log)
	default:
		return nil
	}
}

// dial connects to the vat.
func (t *benchTarget) dial(ctx context.Context) (*client.Conn, error) {
	return client.Dial(ctx, t.URL, nil)
}

// createShares creates n shares with the admin token and returns their
// owner tokens.
func (t *benchTarget) createShares(ctx context.Context, n int) ([]string, error) {
	conn, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	admin, err := conn.RedeemAdmin(ctx, t.admin)
	if err != nil {
		return nil, fmt.Errorf("bench: admin token: %w", err)
	}
	defer admin.Release()
	toks := make([]string, n)
	err = forEach(ctx, n, 8, func(ctx context.Context, i int) error {
		title := fmt.Sprintf("bench %d", i)
		sh, m, err := admin.CreateShare(ctx, sharevat.MetaPatch{Title: &title})
		if err != nil {
			return fmt.Errorf("bench: create share: %w", err)
		}
		sh.Release()
		toks[i] = m.Token
		return nil
	})
	return toks, err
}

// tailLines keeps the last lines the child wrote.
type tailLines struct {
	mu    sync.Mutex
	max   int
	lines []string
}

func (l *tailLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	if len(l.lines) > l.max {
		l.lines = l.lines[len(l.lines)-l.max:]
	}
}

func (l *tailLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.lines) == 0 {
		return "(no output)"
	}
	return strings.Join(l.lines, " | ")
}

// onTarget opens the vat to measure (its own child, or Config.Server), runs
// fn on it and closes it; an error is explained by the child's exit if
// the child died.
func onTarget[R any](ctx context.Context, cfg *Config, fn func(*benchTarget) (R, error)) (R, error) {
	var zero R
	t, err := openTarget(ctx, cfg)
	if err != nil {
		return zero, err
	}
	defer t.Close()
	rep, err := fn(t)
	if err != nil {
		return zero, orExited(t, err)
	}
	return rep, nil
}
