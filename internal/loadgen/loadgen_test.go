package loadgen_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/loadgen"
	"github.com/sharevat/sharevat/internal/proctest"
)

// run runs the bench with cfg (on its own vat unless cfg.Server is set)
// and returns the parsed JSON report.
func run(t *testing.T, cfg loadgen.Config) map[string]any {
	t.Helper()
	if cfg.Server == "" {
		cfg.Exe = binary
	}
	cfg.JSON = true
	var out, stderr bytes.Buffer
	require.NoError(t, loadgen.Run(t.Context(), cfg, &out, &stderr), "bench %+v: %s", cfg, stderr.String())
	var rep map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep), "with JSON the report is one JSON object: %s", out.String())
	assert.Positive(t, num(t, rep, "machine.num_cpu"))
	assert.NotEmpty(t, field(t, rep, "machine.go_version"))
	assert.Equal(t, cfg.WithDefaults().Mode, rep["mode"])
	return rep
}

// field returns the value at a dotted path of a report.
func field(t *testing.T, rep map[string]any, path string) any {
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

func num(t *testing.T, rep map[string]any, path string) float64 {
	t.Helper()
	n, ok := field(t, rep, path).(float64)
	require.True(t, ok, "%s is not a number", path)
	return n
}

// requirePositive checks that every path holds a number > 0.
func requirePositive(t *testing.T, rep map[string]any, paths ...string) {
	t.Helper()
	for _, p := range paths {
		assert.Positive(t, num(t, rep, p), p)
	}
}

// requireTransport checks an append report's transport ceiling: the
// echo alternated with the ping, over as many connections, every figure
// measured.
func requireTransport(t *testing.T, rep map[string]any, conns int) {
	t.Helper()
	assert.Equal(t, float64(conns), num(t, rep, "append.transport_ceiling.conns"))
	assert.Len(t, field(t, rep, "append.transport_ceiling.rounds"), 3, "three echo/ping rounds")
	requirePositive(t, rep, "append.transport_ceiling.echo_calls_per_sec", "append.transport_ceiling.echo_latency.p50_ms",
		"append.transport_ceiling.ping_p50_over_echo_p50", "append.transport_ceiling.ping_rate_over_echo_rate",
		"append.transport_ceiling.echo_cpu_per_call_us", "append.transport_ceiling.ping_cpu_per_call_us")
}

// TestBenchModes runs each mode once, briefly, on the bench's own vat.
func TestBenchModes(t *testing.T) {
	const d, ceiling = 300 * time.Millisecond, 200 * time.Millisecond
	t.Run("append", func(t *testing.T) {
		t.Parallel()
		rep := run(t, loadgen.Config{Duration: d, CeilingDuration: ceiling, Clients: 4, Ops: 3, Body: 50})
		requirePositive(t, rep, "append.ops_per_sec", "append.batches_per_sec", "append.latency.p50_ms",
			"append.latency.p99_ms", "append.server.end.heap_inuse_bytes", "append.server.peak.goroutines",
			"append.commits.commits", "append.commits.ops_per_commit", "append.client_allocs_per_op",
			"append.rpc_ceiling.calls_per_sec", "append.rpc_ceiling.latency.p50_ms",
			"append.storage_ceiling.puts_per_sec", "append.storage_ceiling.p50_ms",
			"append.ratios.batches_per_sec_over_ping_calls_per_sec", "append.ratios.ops_per_sec_over_store_puts_per_sec")
		assert.Equal(t, 3*num(t, rep, "append.batches"), num(t, rep, "append.ops"))
		requireTransport(t, rep, 4)
		assert.Equal(t, "each", field(t, rep, "append.shape.shares"))
		assert.NotContains(t, field(t, rep, "append"), "storage_ceiling_paced", "paced only for sequential appends")
	})
	t.Run("append one client", func(t *testing.T) {
		t.Parallel()
		rep := run(t, loadgen.Config{Duration: d, CeilingDuration: ceiling, Clients: 1, Shares: "one", Count: 50})
		assert.Equal(t, float64(50), num(t, rep, "append.batches"), "Count batches per client")
		requirePositive(t, rep, "append.ratios.p50_over_commit_plus_ping_p50", "append.ratios.p50_over_paced_commit_plus_ping_p50",
			"append.storage_ceiling_paced.p50_ms", "append.storage_ceiling_paced.pause_ms")
		assert.InDelta(t, num(t, rep, "append.rpc_ceiling.latency.p50_ms"), num(t, rep, "append.storage_ceiling_paced.pause_ms"),
			1e-5, "the pause is a ping's p50")
		requireTransport(t, rep, 1)
		requirePositive(t, rep, "append.wal_ratios.p50_over_echo_plus_wal_append_p50")
		targets := field(t, rep, "targets").([]any)
		require.Len(t, targets, 4, "one client, 1-op batches: the latency target and the three against the echo")
		for i, want := range []string{"commit p50 + no-op p50", "ping p50 vs raw WebSocket echo p50", "CPU per ping vs per echo", "(p50 − echo p50) ÷ log append p50"} {
			assert.Contains(t, targets[i].(map[string]any)["target"], want)
		}
	})
	t.Run("restore", func(t *testing.T) {
		t.Parallel()
		rep := run(t, loadgen.Config{Mode: "restore", Duration: d, CeilingDuration: ceiling, Clients: 2})
		requirePositive(t, rep, "restore.redeems_per_sec", "restore.latency.p50_ms", "restore.rpc_ceiling.latency.p50_ms",
			"restore.p50_over_ping_p50", "restore.server.end.goroutines")
		assert.Equal(t, num(t, rep, "restore.redeems"), num(t, rep, "restore.server_redeems_ok"),
			"the vat counted every redeem")
	})
	t.Run("tail", func(t *testing.T) {
		t.Parallel()
		rep := run(t, loadgen.Config{Mode: "tail", Duration: 500 * time.Millisecond, Rate: 200, Subscribers: 3})
		requirePositive(t, rep, "tail.ops_sent", "tail.delivery_latency.p50_ms", "tail.writer_append_latency.p50_ms")
		assert.Equal(t, 3*num(t, rep, "tail.ops_sent"), num(t, rep, "tail.deliveries"), "every subscriber got every op")
		for _, v := range []string{"missing", "duplicates", "out_of_order", "unreadable", "subscriptions_ended"} {
			assert.Zero(t, num(t, rep, "tail.violations."+v), v)
		}
	})
	t.Run("conns", func(t *testing.T) {
		t.Parallel()
		rep := run(t, loadgen.Config{Mode: "conns", Conns: 50})
		assert.Equal(t, float64(50), num(t, rep, "conns.conns"))
		requirePositive(t, rep, "conns.open_seconds", "conns.server.goroutines_per_conn", "conns.server_after.live_connections")
		assert.GreaterOrEqual(t, num(t, rep, "conns.server_after.live_connections"), float64(50))
	})
	t.Run("soak", func(t *testing.T) {
		t.Parallel()
		rep := run(t, loadgen.Config{Mode: "soak", Duration: 2 * time.Second, Sample: 500 * time.Millisecond, Rate: 200, Clients: 2})
		requirePositive(t, rep, "soak.calls", "soak.calls_per_sec", "soak.latency.p50_ms", "soak.growth.base_at_seconds",
			"soak.growth.stored_bytes")
		samples := field(t, rep, "soak.samples").([]any)
		assert.GreaterOrEqual(t, len(samples), 4, "a sample every 500ms for 2s, and one at the end")
		assert.Positive(t, samples[len(samples)-1].(map[string]any)["heap_inuse_bytes"])
		assert.Positive(t, samples[0].(map[string]any)["store_bytes"])
		assert.Equal(t, num(t, rep, "soak.calls"), num(t, rep, "soak.log.ops_appended"), "every call appended one op")
		assert.Zero(t, num(t, rep, "soak.log.ops_compacted"), "no retention, nothing compacted")
		assert.Empty(t, field(t, rep, "soak.shape.retention"), "no retention set")
	})
	t.Run("soak with retention", func(t *testing.T) {
		t.Parallel()
		rep := run(t, loadgen.Config{Mode: "soak", Duration: time.Second, Sample: 250 * time.Millisecond, Rate: 200, Clients: 3,
			Shares: "one", RetainOps: 50, RetainFor: time.Hour})
		assert.Equal(t, float64(50), num(t, rep, "soak.shape.retention.keep_ops"))
		assert.Equal(t, float64(3600), num(t, rep, "soak.shape.retention.keep_for_seconds"))
		assert.Equal(t, float64(1), num(t, rep, "soak.log.shares"), "all clients on one share")
		assert.Equal(t, num(t, rep, "soak.calls"), num(t, rep, "soak.log.ops_appended"))
		assert.Equal(t, num(t, rep, "soak.log.ops_appended"), num(t, rep, "soak.log.ops_readable")+num(t, rep, "soak.log.ops_compacted"))
	})
}

// TestBenchSoakCompacts: a soak with retention, on a running vat whose
// retention job passes every second, reports the ops the job compacted.
func TestBenchSoakCompacts(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, err := proctest.Start(t, binary, nil, "serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "warn",
		"--max-conns-per-ip", "0", "--retention-interval", "1s")
	require.NoError(t, err)
	rep := run(t, loadgen.Config{Server: srv.URL, TokenFile: filepath.Join(data, "admin.token"),
		Mode: "soak", Duration: 3 * time.Second, Sample: time.Second, Rate: 300, Clients: 2, RetainOps: 50})
	appended, compacted := num(t, rep, "soak.log.ops_appended"), num(t, rep, "soak.log.ops_compacted")
	assert.Equal(t, num(t, rep, "soak.calls"), appended)
	assert.Positive(t, compacted, "passes every second drop all but the last 50 ops of each share")
	assert.GreaterOrEqual(t, num(t, rep, "soak.log.ops_readable"), float64(2*50), "each share keeps its last 50 ops")
	assert.Equal(t, appended, compacted+num(t, rep, "soak.log.ops_readable"))
}

// TestBenchServer drives a running vat with its admin token.
func TestBenchServer(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	srv, err := proctest.Start(t, binary, nil, "serve", "--listen", "127.0.0.1:0", "--data", data, "--log-level", "warn")
	require.NoError(t, err)
	rep := run(t, loadgen.Config{Server: srv.URL, TokenFile: filepath.Join(data, "admin.token"),
		Mode: "restore", Duration: 200 * time.Millisecond})
	requirePositive(t, rep, "restore.redeems", "restore.server.end.heap_inuse_bytes", "restore.server_redeems_ok")
}
