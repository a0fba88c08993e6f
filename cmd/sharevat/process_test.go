package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// binary is the sharevat executable built once for the process tests.
var binary string

func TestMain(m *testing.M) {
	bin, dir, err := proctest.Build(".", true)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	binary = bin
	code := pgtest.Main(m) // a PostgreSQL cluster for the tests of --store (multivat_test.go)
	os.RemoveAll(dir)
	if plain.dir != "" {
		os.RemoveAll(plain.dir)
	}
	os.Exit(code)
}

// server is a real `sharevat serve` process.
type server = proctest.Server

// startServer runs `sharevat serve` on a free loopback port and waits for
// it to say where it serves.
func startServer(t *testing.T, data string, extra ...string) *server {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "debug"}, extra...)
	s, err := proctest.Start(t, binary, nil, args...)
	require.NoError(t, err)
	return s
}

// cli runs the sharevat binary as a user would and returns its stdout,
// stderr and exit code. A command still running after 3 minutes (a hang:
// the slowest take ~15 s alone, a few times that on a loaded machine) is
// killed.
func cli(t *testing.T, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
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
