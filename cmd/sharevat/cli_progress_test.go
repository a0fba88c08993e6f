package main_test

import (
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/servertest"
	srvconfig "github.com/sharevat/sharevat/server"
)

// TestAppendSaysWhyItRetries: with nothing listening, append
// says at once that the connection is refused and that it is retrying,
// instead of waiting out --timeout in silence; --quiet keeps only the
// final error.
func TestAppendSaysWhyItRetries(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	url := "ws://" + ln.Addr().String() + "/rpc"
	require.NoError(t, ln.Close())
	env := []string{"SHAREVAT_URL=" + url, "SHAREVAT_TOKEN=" + wellFormedToken, "SHAREVAT_STATE=" + t.TempDir(), obNoExitSleep}

	_, stderr, code := cliIn(t, obThreeOps, env, "append", "--timeout", "1s")
	assert.Equal(t, 1, code, stderr)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	require.GreaterOrEqual(t, len(lines), 2, stderr)
	assert.Regexp(t, `^sharevat: no connection \(.*connection refused\); retrying in \d`, lines[0])
	assert.Contains(t, lines[len(lines)-1], "timed out after --timeout 1s")
	assert.Contains(t, lines[len(lines)-1], "3 op(s) stay pending")

	_, stderr, code = cliIn(t, "", env, "flush", "--timeout", "1s", "--quiet")
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "--quiet: only the error: %s", stderr)
}

// TestAppendProgress: --progress draws the bar of acknowledged
// ops on stderr (as a terminal would get it) and the result stays on
// stdout; without a terminal and without --progress there is none.
func TestAppendProgress(t *testing.T) {
	srv := startServer(t, t.TempDir())
	owner := createShare(t, srv)
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, obNoExitSleep}

	out, stderr, code := cli(t, i9Ops("p", 2000), env, "append", "--progress")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "applied 2000, duplicate 0, rejected 0; head is 2000\n", out)
	assert.Contains(t, stderr, "stored 2000 op(s) in ")
	assert.Contains(t, stderr, "2000/2000")
	assert.Contains(t, stderr, "2000 sent")

	out, stderr, code = cli(t, i9Ops("q", 2000), env, "append")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "applied 2000, duplicate 0, rejected 0; head is 4000\n", out)
	assert.Empty(t, stderr, "no terminal: no progress")
}

// TestOversizedOpsExit4: an op over the server's body limit
// and one too big to send at all both exit 4, each reported as rejected
// tooLarge with the server's real limit (its body limit, asked of the
// server), not the outbox's batch size. The limits are those of serve's
// defaults divided by 100 (body 10 kB, append 80 kB, the outbox's batch
// 40 kB), and so are the ops (20 kB, 100 kB): the CLI runs in-process,
// where a test can set the outbox's batch size; 2 MB and 10 MB ops
// through the binary took ~35 s under the race detector.
func TestOversizedOpsExit4(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{Config: func(c *srvconfig.Config) {
		c.Limits.MaxBodyBytes, c.Limits.MaxBatchBytes = 10_000, 80_000
	}})
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner}
	batch40k := func(o *client.OutboxOptions) { o.MaxBatchBytes = 40_000 }
	op := func(id string, n int) string {
		return `{"op_id":"` + id + `","kind":"event","body":"` + strings.Repeat("x", n) + `"}` + "\n"
	}
	for name, n := range map[string]int{"20 kB": 20_000, "100 kB": 100_000} {
		out, stderr, code := cliInTuned(t, batch40k, op("big", n), env, "append")
		assert.Equal(t, 4, code, "%s: %s", name, stderr)
		assert.Regexp(t, `(?m)^  big rejected: tooLarge \(body is \d+ bytes; limit is 10000[;)]`, out, name)
		assert.Equal(t, "sharevat: 1 op(s) rejected\n", stderr, name)
	}
}

// TestAppendSaysWhatWasRedacted: the summary says how many
// secret-shaped strings the server's privacy guard replaced.
func TestAppendSaysWhatWasRedacted(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, obNoExitSleep}
	leaked := `{"op_id":"m1","kind":"message","key":"msg_1","body":{"text":"my token is ` + owner + `"}}` + "\n"
	out, stderr, code := cliIn(t, leaked, env, "append")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "applied 1, duplicate 0, rejected 0; head is 1\n"+
		"redacted 1 secret-shaped string(s) before storing (the share's privacy policy)\n", out)
	assert.NotContains(t, out+stderr, owner[30:])
	read, _, code := cliIn(t, "", env, "read")
	require.Equal(t, 0, code)
	assert.Contains(t, read, "[REDACTED:sharevat-token]")
	assert.NotContains(t, read, owner[30:])
}
