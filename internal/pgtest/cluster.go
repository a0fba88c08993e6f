package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
)

// cluster is one running PostgreSQL server and its directory.
type cluster struct {
	dir  string // the temporary directory: data/, the socket, the log
	port int
	cmd  *exec.Cmd
	done chan struct{} // closed when the server process has exited
	log  *bytes.Buffer // the server's output, shown when it fails to start
	cred *syscall.Credential
}

// startTimeout bounds initdb plus the server's start.
const startTimeout = 60 * time.Second

// findBin returns the directory holding initdb and postgres.
func findBin() (string, error) {
	if dir := os.Getenv("SHAREVAT_PG_BIN"); dir != "" {
		return dir, hasBinaries(dir)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int { return versionOf(b) - versionOf(a) })
	for _, dir := range dirs {
		if hasBinaries(dir) == nil {
			return dir, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), hasBinaries(filepath.Dir(p))
	}
	return "", errors.New("no initdb and postgres under $SHAREVAT_PG_BIN, /usr/lib/postgresql/*/bin or $PATH (Debian: apt-get install postgresql)")
}

// versionOf is the major version in /usr/lib/postgresql/<v>/bin, or 0.
func versionOf(dir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(dir)))
	return v
}

func hasBinaries(dir string) error {
	for _, name := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// newCluster runs initdb in a new temporary directory and starts the
// server, as nobody when running as root.
func newCluster(ctx context.Context, bin string) (*cluster, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "pgtest-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, log: &bytes.Buffer{}}
	if err := c.setUser(); err != nil {
		return nil, c.fail(err)
	}
	if err := c.initdb(ctx, bin); err != nil {
		return nil, c.fail(err)
	}
	if err := c.start(bin); err != nil {
		return nil, c.fail(err)
	}
	if err := c.waitReady(ctx); err != nil {
		_ = c.stop()
		return nil, fmt.Errorf("%w; server output:\n%s", err, c.log)
	}
	return c, nil
}

// fail removes the directory of a cluster that did not start.
func (c *cluster) fail(err error) error {
	_ = os.RemoveAll(c.dir)
	return err
}

// setUser picks nobody when running as root and hands it the directory.
func (c *cluster) setUser() error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("nobody")
	if err != nil {
		return fmt.Errorf("running as root, and no user nobody to run PostgreSQL as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	return os.Chown(c.dir, uid, gid)
}

// command is an exec.Cmd of the binary name under bin, as c's user.
func (c *cluster) command(ctx context.Context, bin, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(bin, name), args...)
	cmd.Dir = c.dir
	cmd.Env = append(os.Environ(), "LC_ALL=C", "HOME="+c.dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.cred}
	return cmd
}

func (c *cluster) initdb(ctx context.Context, bin string) error {
	cmd := c.command(ctx, bin, "initdb", "-D", filepath.Join(c.dir, "data"), "-U", "postgres",
		"--auth=trust", "--encoding=UTF8", "--locale=C", "--no-sync")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	return nil
}

// start starts postgres on c.port, or on a free port the first time; it
// does not wait for it.
func (c *cluster) start(bin string) error {
	if c.port == 0 {
		port, err := freePort()
		if err != nil {
			return err
		}
		c.port = port
	}
	c.done = make(chan struct{})
	c.cmd = c.command(context.Background(), bin, "postgres", "-D", filepath.Join(c.dir, "data"),
		"-k", c.dir, "-p", strconv.Itoa(c.port), "-c", "listen_addresses=127.0.0.1",
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=300")
	c.cmd.Stdout, c.cmd.Stderr = c.log, c.log
	if err := c.cmd.Start(); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	cmd, done := c.cmd, c.done
	go func() { _ = cmd.Wait(); close(done) }()
	return nil
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady polls until the server answers a query, it exits, or ctx
// ends: a starting server signals nothing else a client can wait on.
func (c *cluster) waitReady(ctx context.Context) error {
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		conn, err := pgx.Connect(ctx, c.dsn("postgres"))
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-c.done:
			return errors.New("postgres exited at start")
		case <-ctx.Done():
			return fmt.Errorf("postgres did not answer within %v: %w", startTimeout, err)
		case <-tick.C:
		}
	}
}

// stop shuts the server down and removes the directory.
func (c *cluster) stop() error {
	c.halt()
	return os.RemoveAll(c.dir)
}

// halt shuts the server down (fast shutdown, then a kill after 10 s) and
// keeps its directory, so that start can bring it back.
func (c *cluster) halt() {
	if c.cmd != nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			_ = c.cmd.Process.Kill()
			<-c.done
		}
	}
}
