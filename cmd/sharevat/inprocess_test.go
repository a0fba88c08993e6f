package main_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sharevat/sharevat/client"
	sharevatcmd "github.com/sharevat/sharevat/cmd/sharevat"
	"github.com/sharevat/sharevat/internal/servertest"
)

// cliIn is cli in the test's own process: the CLI's command tree runs
// with args, stdin and env (KEY=VALUE, the last of a key winning, over
// the test's environment, with a state dir of the test's own as cli
// gives) and returns stdout, stderr and the exit code main would give.
// Use it where the binary is not the subject; the race detector then
// sees the CLI and an in-process server at once.
func cliIn(t *testing.T, stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	return cliInTuned(t, nil, stdin, env, args...)
}

// cliInTuned is cliIn with tune adjusting the options append and flush
// open their outbox with (RunInProcessTuned): fewer kept results, a
// smaller batch, so a test of what happens past them needs few ops.
func cliInTuned(t *testing.T, tune func(*client.OutboxOptions), stdin string, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	vars := map[string]string{"SHAREVAT_STATE": t.TempDir()}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	getenv := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	var out, errb strings.Builder
	code := sharevatcmd.RunInProcessTuned(ctx, tune, args, getenv, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// startInProcess starts the whole server in the test's process
// (internal/servertest) and returns it with an owner token of a new
// share, created through the in-process CLI as createShare does.
func startInProcess(t *testing.T, opts servertest.Options) (*servertest.Server, string) {
	t.Helper()
	srv := servertest.Start(t, opts)
	return srv, createShareIn(t, srv)
}

// createShareIn creates a share on srv with the in-process CLI, as
// createShare does on a process, and returns its owner token.
func createShareIn(t *testing.T, srv *servertest.Server) string {
	t.Helper()
	out, stderr, code := cliIn(t, "", nil, "create", "--server", srv.URL, "--token-file", filepath.Join(srv.Data, "admin.token"), "--title", "in-process")
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, stderr)
	}
	return firstLine(out)
}

// keepDone returns a tune for cliInTuned: the outbox keeps n done results.
func keepDone(n int) func(*client.OutboxOptions) {
	return func(o *client.OutboxOptions) { o.KeepDone = n }
}
