package main_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBenchJSON runs `sharevat bench --json` end to end: one JSON object
// on stdout, carrying every flag as used, mode defaults filled in.
func TestBenchJSON(t *testing.T) {
	t.Parallel()
	out, stderr, code := cli(t, "", nil, "bench", "--json", "--mode", "conns", "--conns", "20")
	require.Equal(t, 0, code, stderr)
	var rep struct {
		Mode  string
		Flags map[string]string
		Conns struct{ Conns int }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), "bench --json prints one JSON object: %s", out)
	assert.Equal(t, "conns", rep.Mode)
	assert.Equal(t, 20, rep.Conns.Conns)
	for flag, want := range map[string]string{"mode": "conns", "conns": "20", "clients": "64", "duration": "10s", "count": "0", "json": "true"} {
		assert.Equal(t, want, rep.Flags[flag], "flags.%s", flag)
	}
}

// TestBenchSoakRetention: --retain-ops and --retain-for set each soak
// share's retention before the run, and the report shows it.
func TestBenchSoakRetention(t *testing.T) {
	t.Parallel()
	out, stderr, code := cli(t, "", nil, "bench", "--mode", "soak", "--duration", "2s", "--sample", "500ms", "--rate", "100",
		"--clients", "2", "--retain-ops", "20000", "--retain-for", "30m")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "retention  keep the last 20,000 ops and the ops of the last 30m0s of each share")
	assert.Regexp(t, `log +\d[\d,]* ops appended to 2 share\(s\), 0 compacted`, out)
	assert.Contains(t, out, "per GiB stored")
	out, stderr, code = cli(t, "", nil, "bench", "--json", "--mode", "soak", "--duration", "1s", "--sample", "250ms", "--rate", "100",
		"--clients", "1", "--retain-ops", "7")
	require.Equal(t, 0, code, stderr)
	var rep struct {
		Flags map[string]string
		Soak  struct {
			Shape struct {
				Retention map[string]float64
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	assert.Equal(t, map[string]float64{"keep_ops": 7}, rep.Soak.Shape.Retention)
	assert.Equal(t, "7", rep.Flags["retain-ops"])
	assert.Equal(t, "0s", rep.Flags["retain-for"], "not set: no retention by age")
}

// TestBenchAll runs every target in one go and prints one table.
func TestBenchAll(t *testing.T) {
	t.Parallel()
	out, stderr, code := cli(t, "", nil, "bench", "--mode", "all", "--duration", "200ms", "--ceiling-duration", "100ms", "--conns", "20")
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"TARGET", "64 clients, 1-op batches", "100-op batches of 200 B", "1 client, sequential",
		"restore (1 client)", "20 idle conns", "tail: 8 subscribers"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "memory flat", "the soak runs only with --soak")
}

// TestBenchUsage: absurd or misplaced flags are usage errors (exit 2),
// reported on one line, before anything starts.
func TestBenchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--mode", "nope"},
		{"--clients", "0"},
		{"--clients", "20001"},
		{"--ops", "0"},
		{"--ops", "100001"},
		{"--body", "1"},
		{"--body", "16777217"},
		{"--duration", "0s"},
		{"--duration", "-1s"},
		{"--ceiling-duration", "-1s"},
		{"--count", "-5"},
		{"--shares", "two"},
		{"--ops", "100000", "--body", "1000"},
		{"--conns", "10"},
		{"--mode", "conns", "--clients", "4"},
		{"--mode", "soak", "--sample", "1ms"},
		{"--mode", "tail", "--rate", "0"},
		{"--mode", "soak", "--retain-ops", "0"},
		{"--mode", "soak", "--retain-for", "0s"},
		{"--mode", "soak", "--retain-for", "-1h"},
		{"--mode", "soak", "--retain-ops", "-1"},
		{"--retain-ops", "10"},
		{"--mode", "all", "--soak", "--retain-for", "1h"},
		{"--token-file", "x"},
		{"--server", "ws://127.0.0.1:1/rpc"},
		{"--server", "http://127.0.0.1:1/rpc", "--token-file", "x"},
		{"--server", "ws://192.0.2.1:7420/rpc", "--token-file", "x"},
		{"stray"},
	} {
		_, stderr, code := cliIn(t, "", nil, append([]string{"bench"}, args...)...)
		assert.Equal(t, 2, code, "bench %v: %s", args, stderr)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "bench %v: one line: %s", args, stderr)
	}
}
