package main_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/proctest"
)

// startServeEnv starts `sharevat serve` on a fresh data directory with
// env added to its environment and extra flags; it returns the server
// and the environment to run the CLI with the admin token.
func startServeEnv(t *testing.T, env []string, extra ...string) (*server, []string) {
	t.Helper()
	data := t.TempDir()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "debug"}, extra...)
	s, err := proctest.Start(t, binary, env, args...)
	require.NoError(t, err)
	return s, []string{"SHAREVAT_URL=" + s.URL, "SHAREVAT_TOKEN_FILE=" + filepath.Join(data, "admin.token")}
}

// asToken is the environment to run the CLI against s with token.
func asToken(s *server, token string) []string {
	return []string{"SHAREVAT_URL=" + s.URL, "SHAREVAT_TOKEN=" + token}
}

// mustCLI runs the CLI, requires exit code 0 and returns stdout.
func mustCLI(t *testing.T, stdin string, env []string, args ...string) string {
	t.Helper()
	out, stderr, code := cli(t, stdin, env, args...)
	require.Equal(t, 0, code, "sharevat %s: %s", strings.Join(args, " "), stderr)
	return out
}

// TestServeForkQuotaFlags: --max-forks and --max-fork-depth (here from
// SHAREVAT_MAX_FORK_DEPTH) take effect: with 1 and 1, a share's second
// live fork and a fork of a fork answer tooLarge (exit 1) naming the
// limit, each counted in /metrics; deleting the fork gives its place
// back.
func TestServeForkQuotaFlags(t *testing.T) {
	s, admin := startServeEnv(t, []string{"SHAREVAT_MAX_FORK_DEPTH=1"}, "--max-forks", "1")
	owner := asToken(s, firstLine(mustCLI(t, "", admin, "create", "--title", "quota")))
	fork := asToken(s, strings.TrimSpace(mustCLI(t, "", owner, "fork", "--at", "0")))

	_, stderr, code := cli(t, "", owner, "fork", "--at", "0")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "tooLarge")
	assert.Contains(t, stderr, "this share has 1 live forks (the limit is 1)")
	_, stderr, code = cli(t, "", fork, "fork", "--at", "0")
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, "tooLarge")
	assert.Contains(t, stderr, "this share is a fork 1 deep (the limit is 1)")

	body := fetchMetrics(t, s)
	assert.Contains(t, body, `sharevat_limit_hits_total{limit="forks"} 1`)
	assert.Contains(t, body, `sharevat_limit_hits_total{limit="fork_depth"} 1`)

	mustCLI(t, "", fork, "delete", "--yes")
	mustCLI(t, "", owner, "fork", "--at", "0")
}

// TestServeLifecycleFlagsChecked: the fork quota and retention flags
// refuse what no server can work with (exit 2, naming the flag or its
// variable), and serve -h names each with its variable.
func TestServeLifecycleFlagsChecked(t *testing.T) {
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--max-forks", "0"}, "--max-forks must be 1 to 1000000"},
		{nil, []string{"--max-forks", "1000001"}, "--max-forks must be 1 to 1000000"},
		{nil, []string{"--max-fork-depth", "0"}, "--max-fork-depth must be 1 to 1000"},
		{nil, []string{"--max-fork-depth", "1001"}, "--max-fork-depth must be 1 to 1000"},
		{nil, []string{"--retention-interval", "10ms"}, "--retention-interval must be at least 1s"},
		{nil, []string{"--retention-interval", "-1m"}, "--retention-interval must be at least 1s"},
		{nil, []string{"--retention-ops", "0"}, "--retention-ops must be 1 to 10000000"},
		{[]string{"SHAREVAT_MAX_FORKS=many"}, nil, "SHAREVAT_MAX_FORKS"},
		{[]string{"SHAREVAT_RETENTION_INTERVAL=hourly"}, nil, "SHAREVAT_RETENTION_INTERVAL"},
		{[]string{"SHAREVAT_RETENTION_OPS=-5"}, nil, "--retention-ops must be 1 to 10000000"},
	} {
		args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", t.TempDir()}, c.args...)
		_, stderr, code := cli(t, "", c.env, args...)
		assert.Equal(t, 2, code, "%v %v: %s", c.env, c.args, stderr)
		assert.Contains(t, stderr, c.want, "%v %v", c.env, c.args)
	}

	help, _, _ := cli(t, "", nil, "serve", "-h")
	for _, f := range []string{"max-forks", "max-fork-depth", "retention-interval", "retention-ops"} {
		assert.Regexp(t, `--`+f+` .*\(env SHAREVAT_`+strings.ToUpper(strings.ReplaceAll(f, "-", "_"))+`\)`, help, "serve -h names --%s and its variable", f)
	}
}

// TestRetentionMetrics: the retention flags take effect and /metrics
// reports the job. With --retention-ops 3 (from SHAREVAT_RETENTION_OPS),
// keeping the last op of 10 takes three passes of 3 ops, the first two
// behind; with --retention-interval 1s, ops appended afterwards go at
// the next timed pass (the default would wait a minute). The counters
// say so: passes, compactions, dropped ops, no errors, not behind at the
// end, and the pass durations.
func TestRetentionMetrics(t *testing.T) {
	s, admin := startServeEnv(t, []string{"SHAREVAT_RETENTION_OPS=3"}, "--retention-interval", "1s")
	body := fetchMetrics(t, s)
	for _, name := range []string{"sharevat_retention_passes_total", "sharevat_retention_compactions_total", "sharevat_retention_dropped_ops_total",
		"sharevat_retention_errors_total", "sharevat_retention_behind", "sharevat_retention_pass_duration_seconds_count"} {
		assert.Regexp(t, `(?m)^`+name+` 0$`, body, "exported before any pass")
	}

	owner := asToken(s, firstLine(mustCLI(t, "", admin, "create", "--title", "retained")))
	mustCLI(t, events("r", 10), owner, "append")
	mustCLI(t, "", owner, "retention", "--keep-ops", "1")
	body = waitMetric(t, s, "sharevat_retention_dropped_ops_total", 9)
	assert.Regexp(t, `(?m)^sharevat_retention_compactions_total 3$`, body, "three compactions of the share")
	assert.Regexp(t, `(?m)^sharevat_retention_errors_total 0$`, body)
	assert.GreaterOrEqual(t, metricValue(t, body, "sharevat_retention_passes_total"), 3.0)
	assert.GreaterOrEqual(t, metricValue(t, body, "sharevat_retention_pass_duration_seconds_count"), 3.0)
	assert.Regexp(t, `(?m)^sharevat_retention_pass_duration_seconds_bucket\{le="\+Inf"\} [1-9]`, body)
	assert.Regexp(t, `dropped=3 errors=0 behind=true`, s.Log.String(), "a pass stopped on the budget of 3, behind")

	mustCLI(t, events("late", 5), owner, "append")
	body = waitMetric(t, s, "sharevat_retention_dropped_ops_total", 14)
	assert.Regexp(t, `(?m)^sharevat_retention_behind 0$`, body, "caught up")
	_, stderr, code := cli(t, "", owner, "read", "--from", "13")
	assert.Equal(t, 1, code, "only the last op is left")
	assert.Contains(t, stderr, "ops before cursor 15 were compacted; read after cursor 14")
	assert.Equal(t, []string{"late5"}, opIDsOf(t, mustCLI(t, "", owner, "read", "--from", "14")))
}

// waitMetric scrapes /metrics until the unlabelled metric name reaches
// want, and returns that scrape; it fails after 30 s.
func waitMetric(t *testing.T, s *server, name string, want float64) string {
	t.Helper()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(30 * time.Second)
	for {
		body := fetchMetrics(t, s)
		if metricValue(t, body, name) >= want {
			return body
		}
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatalf("%s did not reach %g within 30s:\n%s\nserver log:\n%s", name, want, body, s.Log)
		}
	}
}

// metricValue is the value of the unlabelled metric name in a scrape.
func metricValue(t *testing.T, body, name string) float64 {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`).FindStringSubmatch(body)
	require.NotNil(t, m, "%s in /metrics", name)
	var v float64
	_, err := fmt.Sscan(m[1], &v)
	require.NoError(t, err)
	return v
}
