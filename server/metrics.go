package server

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/vat"
)

// metrics is the server's Prometheus registry and the vat.Observer and
// store commit hook that feed it. Labels are fixed, small sets: never a
// token, grant id or share id.
type metrics struct {
	reg         *prometheus.Registry
	redeems     *prometheus.CounterVec
	appends     prometheus.Counter
	ops         *prometheus.CounterVec
	appendTime  prometheus.Histogram
	commits     prometheus.Counter
	commitCalls prometheus.Histogram
	commitOps   prometheus.Histogram
	commitTime  prometheus.Histogram
	revoked     prometheus.Counter
	bumps       prometheus.Counter
	caps        prometheus.Gauge
	limits      *prometheus.CounterVec
	retention   retentionMetrics
}

// retentionMetrics are the background retention job's figures, fed by
// its OnPass hook (RetentionPassed).
type retentionMetrics struct {
	passes    prometheus.Counter
	compacted prometheus.Counter
	dropped   prometheus.Counter
	errors    prometheus.Counter
	behind    prometheus.Gauge
	took      prometheus.Histogram
}

func newRetentionMetrics() retentionMetrics {
	return retentionMetrics{
		passes:    counter("retention_passes_total", "Passes of the background retention job."),
		compacted: counter("retention_compactions_total", "Share compactions by the retention job (a share compacted in two passes counts twice)."),
		dropped:   counter("retention_dropped_ops_total", "Ops (log entries) the retention job dropped."),
		errors:    counter("retention_errors_total", "Shares whose compaction by the retention job failed (each is logged)."),
		behind:    prometheus.NewGauge(prometheus.GaugeOpts{Name: "sharevat_retention_behind", Help: "1 when the retention job's last pass stopped on its budget (serve --retention-ops) with ops left to drop, else 0."}),
		took:      histogram("retention_pass_duration_seconds", "Time one retention pass took.", prometheus.ExponentialBuckets(100e-6, 4, 10)),
	}
}

func (r retentionMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{r.passes, r.compacted, r.dropped, r.errors, r.behind, r.took}
}

var _ vat.Observer = (*metrics)(nil)

func newMetrics() *metrics {
	m := &metrics{
		reg:         prometheus.NewRegistry(),
		redeems:     counterVec("redeems_total", "Token redeems by result (ok, unauthorized).", "result"),
		appends:     counter("appends_total", "Append calls answered."),
		ops:         counterVec("ops_total", "Appended ops by status (applied, duplicate, rejected).", "status"),
		appendTime:  histogram("append_duration_seconds", "Append call latency, including the durable commit.", prometheus.ExponentialBuckets(50e-6, 2, 16)),
		commits:     counter("commits_total", "Durable append transactions (group commits)."),
		commitCalls: histogram("commit_calls", "Append calls per group commit.", prometheus.ExponentialBuckets(1, 2, 8)),
		commitOps:   histogram("commit_ops", "Ops per group commit.", prometheus.ExponentialBuckets(1, 4, 9)),
		commitTime:  histogram("commit_duration_seconds", "Group commit latency, including fsync.", prometheus.ExponentialBuckets(50e-6, 2, 16)),
		revoked:     counter("revocations_total", "Grants revoked (a revoked subtree counts each grant)."),
		bumps:       counter("epoch_bumps_total", "Epoch bumps."),
		caps:        prometheus.NewGauge(prometheus.GaugeOpts{Name: "sharevat_live_capabilities", Help: "Live capability objects handed out to peers."}),
		limits:      counterVec("limit_hits_total", "Connections closed, connections refused and calls refused by a limit (docs/operations.md, \"Limits\"), by limit.", "limit"),
		retention:   newRetentionMetrics(),
	}
	m.reg.MustRegister(m.redeems, m.appends, m.ops, m.appendTime, m.commits, m.commitCalls, m.commitOps, m.commitTime,
		m.revoked, m.bumps, m.caps, m.limits, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(m.retention.collectors()...)
	m.reg.MustRegister(buildInfo()) // buildinfo.go
	return m
}

func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: "sharevat_" + name, Help: help})
}

func counterVec(name, help, label string) *prometheus.CounterVec {
	return prometheus.NewCounterVec(prometheus.CounterOpts{Name: "sharevat_" + name, Help: help}, []string{label})
}

func histogram(name, help string, buckets []float64) prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: "sharevat_" + name, Help: help, Buckets: buckets})
}

// watchConns exports the live WebSocket connection count.
func (m *metrics) watchConns(conns func() int) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "sharevat_live_connections", Help: "Live RPC (WebSocket) connections.",
	}, func() float64 { return float64(conns()) }))
}

// watchMemory exports the server-wide memory budget and its use.
func (m *metrics) watchMemory(p *rpc.MemoryPool) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "sharevat_memory_budget_used_bytes", Help: "Bytes all connections hold against the server's memory budget.",
	}, func() float64 { return float64(p.Used()) }), prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "sharevat_memory_budget_bytes", Help: "The server's memory budget for all connections (serve --memory-budget).",
	}, func() float64 { return float64(p.Limit()) }))
}

// watchStore exports the data file's size in use (bolt.DB.Size).
func (m *metrics) watchStore(size func() int64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "sharevat_store_bytes", Help: "Bytes of the data file in use (free pages included); grows with the data stored.",
	}, func() float64 { return float64(size()) }))
}

// handler serves /metrics.
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Redeemed implements vat.Observer.
func (m *metrics) Redeemed(ok bool) {
	result := "ok"
	if !ok {
		result = string(sharevat.EUnauthorized)
	}
	m.redeems.WithLabelValues(result).Inc()
}

// Appended implements vat.Observer.
func (m *metrics) Appended(ack sharevat.Ack, took time.Duration) {
	m.appends.Inc()
	m.appendTime.Observe(took.Seconds())
	m.ops.WithLabelValues("applied").Add(float64(ack.Applied))
	m.ops.WithLabelValues("duplicate").Add(float64(ack.Duplicates))
	m.ops.WithLabelValues("rejected").Add(float64(ack.Rejected))
}

// Revoked implements vat.Observer.
func (m *metrics) Revoked(n int) { m.revoked.Add(float64(n)) }

// EpochBumped implements vat.Observer.
func (m *metrics) EpochBumped() { m.bumps.Inc() }

// LimitHit implements vat.Observer; it is also the rpc handler's OnLimit.
func (m *metrics) LimitHit(limit string) { m.limits.WithLabelValues(limit).Inc() }

// Capabilities implements vat.Observer.
func (m *metrics) Capabilities(delta int) { m.caps.Add(float64(delta)) }

// RetentionPassed is the retention job's OnPass hook (vat.Retention): it
// runs on the job's goroutine and never blocks.
func (m *metrics) RetentionPassed(p vat.RetentionPass) {
	r := m.retention
	r.passes.Inc()
	r.compacted.Add(float64(p.Compacted))
	r.dropped.Add(float64(p.Dropped))
	r.errors.Add(float64(p.Errors))
	r.took.Observe(p.Took.Seconds())
	behind := 0.0
	if p.More {
		behind = 1
	}
	r.behind.Set(behind)
}

// Committed is the store's OnCommit hook.
func (m *metrics) Committed(calls, ops int, took time.Duration) {
	m.commits.Inc()
	m.commitCalls.Observe(float64(calls))
	m.commitOps.Observe(float64(ops))
	m.commitTime.Observe(took.Seconds())
}
