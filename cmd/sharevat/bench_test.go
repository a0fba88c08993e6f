package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchRun runs `sharevat bench --json args…`, requires exit 0 and
// returns the parsed report.
func benchRun(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out, stderr, code := cli(t, "", nil, append([]string{"bench", "--json"}, args...)...)
	require.Equal(t, 0, code, "bench %v: %s", args, stderr)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep), "bench --json prints one JSON object: %s", out)
	assert.Positive(t, benchNum(t, rep, "machine.num_cpu"))
	assert.NotEmpty(t, benchField(t, rep, "machine.go_version"))
	assert.Equal(t, rep["mode"], benchField(t, rep, "flags.mode"), "the report carries the flags used")
	return rep
}

// benchField returns the value at a dotted path of a report.
func benchField(t *testing.T, rep map[string]any, path string) any {
	t.Helper()
	var v any = rep
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		require.True(t, ok, "%s: %q is not inside an object", path, k)
		v, ok = m[k]
		require.True(t, ok, "%s: no field %q", path, k)
	}
	return v
}

func benchNum(t *testing.T, rep map[string]any, path string) float64 {
	t.Helper()
	n, ok := benchField(t, rep, path).(float64)
	require.True(t, ok, "%s is not a number", path)
	return n
}

// requirePositive checks that every path holds a number > 0.
func requirePositive(t *testing.T, rep map[string]any, paths ...string) {
	t.Helper()
	for _, p := range paths {
		assert.Positive(t, benchNum(t, rep, p), p)
	}
}

// TestBenchModes runs each mode once, briefly, on the bench's own vat.
func TestBenchModes(t *testing.T) {
	short := []string{"--duration", "300ms", "--ceiling-duration", "200ms"}
	t.Run("append", func(t *testing.T) {
		t.Parallel()
		rep := benchRun(t, append(short, "--clients", "4", "--ops", "3", "--body", "50")...)
		requirePositive(t, rep, "append.ops_per_sec", "append.batches_per_sec", "append.latency.p50_ms",
			"append.latency.p99_ms", "append.server.end.heap_inuse_bytes", "append.server.peak.goroutines",
			"append.commits.commits", "append.commits.ops_per_commit", "append.client_allocs_per_op",
			"append.rpc_ceiling.calls_per_sec", "append.rpc_ceiling.latency.p50_ms",
			"append.storage_ceiling.puts_per_sec", "append.storage_ceiling.p50_ms",
			"append.ratios.batches_per_sec_over_ping_calls_per_sec", "append.ratios.ops_per_sec_over_store_puts_per_sec")
		assert.Equal(t, 3*benchNum(t, rep, "append.batches"), benchNum(t, rep, "append.ops"))
		assert.Equal(t, "each", benchField(t, rep, "append.shape.shares"))
		assert.NotContains(t, benchField(t, rep, "append"), "storage_ceiling_paced", "paced only for sequential appends")
	})
	t.Run("append one client", func(t *testing.T) {
		t.Parallel()
		rep := benchRun(t, append(short, "--clients", "1", "--shares", "one", "--count", "50")...)
		assert.Equal(t, float64(50), benchNum(t, rep, "append.batches"), "--count batches per client")
		requirePositive(t, rep, "append.ratios.p50_over_commit_plus_ping_p50", "append.ratios.p50_over_paced_commit_plus_ping_p50",
			"append.storage_ceiling_paced.p50_ms", "append.storage_ceiling_paced.pause_ms")
		assert.InDelta(t, benchNum(t, rep, "append.rpc_ceiling.latency.p50_ms"), benchNum(t, rep, "append.storage_ceiling_paced.pause_ms"),
			1e-5, "the pause is a ping's p50")
		targets := benchField(t, rep, "targets").([]any)
		require.Len(t, targets, 1, "one client, 1-op batches is one of the issue's targets")
		assert.Contains(t, targets[0].(map[string]any)["target"], "1 client")
	})
	t.Run("restore", func(t *testing.T) {
		t.Parallel()
		rep := benchRun(t, append(short, "--mode", "restore", "--clients", "2")...)
		requirePositive(t, rep, "restore.redeems_per_sec", "restore.latency.p50_ms", "restore.rpc_ceiling.latency.p50_ms",
			"restore.p50_over_ping_p50", "restore.server.end.goroutines")
		assert.Equal(t, benchNum(t, rep, "restore.redeems"), benchNum(t, rep, "restore.server_redeems_ok"),
			"the vat counted every redeem")
	})
	t.Run("tail", func(t *testing.T) {
		t.Parallel()
		rep := benchRun(t, "--mode", "tail", "--duration", "500ms", "--rate", "200", "--subscribers", "3")
		requirePositive(t, rep, "tail.ops_sent", "tail.delivery_latency.p50_ms", "tail.writer_append_latency.p50_ms")
		assert.Equal(t, 3*benchNum(t, rep, "tail.ops_sent"), benchNum(t, rep, "tail.deliveries"), "every subscriber got every op")
		for _, v := range []string{"missing", "duplicates", "out_of_order", "unreadable", "subscriptions_ended"} {
			assert.Zero(t, benchNum(t, rep, "tail.violations."+v), v)
		}
	})
	t.Run("conns", func(t *testing.T) {
		t.Parallel()
		rep := benchRun(t, "--mode", "conns", "--conns", "50")
		assert.Equal(t, float64(50), benchNum(t, rep, "conns.conns"))
		requirePositive(t, rep, "conns.open_seconds", "conns.server.goroutines_per_conn", "conns.server_after.live_connections")
		assert.GreaterOrEqual(t, benchNum(t, rep, "conns.server_after.live_connections"), float64(50))
	})
	t.Run("soak", func(t *testing.T) {
		t.Parallel()
		rep := benchRun(t, "--mode", "soak", "--duration", "2s", "--sample", "500ms", "--rate", "200", "--clients", "2")
		requirePositive(t, rep, "soak.calls", "soak.calls_per_sec", "soak.latency.p50_ms", "soak.growth.base_at_seconds",
			"soak.growth.stored_bytes")
		samples := benchField(t, rep, "soak.samples").([]any)
		assert.GreaterOrEqual(t, len(samples), 4, "a sample every 500ms for 2s, and one at the end")
		assert.Positive(t, samples[len(samples)-1].(map[string]any)["heap_inuse_bytes"])
		assert.Positive(t, samples[0].(map[string]any)["store_bytes"])
	})
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

// TestBenchServer drives a running vat with --server and its admin token.
func TestBenchServer(t *testing.T) {
	t.Parallel()
	srv := startServer(t, t.TempDir())
	rep := benchRun(t, "--server", srv.URL, "--token-file", filepath.Join(srv.Data, "admin.token"),
		"--mode", "restore", "--duration", "200ms")
	requirePositive(t, rep, "restore.redeems", "restore.server.end.heap_inuse_bytes", "restore.server_redeems_ok")
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
		{"--token-file", "x"},
		{"--server", "ws://127.0.0.1:1/rpc"},
		{"--server", "http://127.0.0.1:1/rpc", "--token-file", "x"},
		{"--server", "ws://192.0.2.1:7420/rpc", "--token-file", "x"},
		{"stray"},
	} {
		_, stderr, code := cli(t, "", nil, append([]string{"bench"}, args...)...)
		assert.Equal(t, 2, code, "bench %v: %s", args, stderr)
		assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "bench %v: one line: %s", args, stderr)
	}
}
