package loadgen

import (
	"context"
	"fmt"
	"io"
	"strings"
)

// noWALReport is an append load run again on a vat with the write-ahead
// log off (serve --wal=off: every group commits a bbolt transaction), in
// the same bench run, against the ping ceiling measured with the log on
// (the RPC path is the same).
type noWALReport struct {
	Skipped       string       `json:"skipped,omitempty"` // why it did not run
	OpsPerSec     float64      `json:"ops_per_sec"`
	BatchesPerSec float64      `json:"batches_per_sec"`
	Latency       latencies    `json:"latency"`
	CPU           cpuReport    `json:"cpu"`
	Commits       commitReport `json:"commits"`
	// RPC is batches/s over the run's pings/s; Throughput ops/s over the
	// log's stream ceiling (for comparison with the figures with the log).
	RPC        float64 `json:"batches_per_sec_over_ping_calls_per_sec"`
	Throughput float64 `json:"ops_per_sec_over_wal_stream_ops_per_sec,omitempty"`
}

// compareNoWAL runs r's load on a new vat of the bench's own with the
// write-ahead log off. A serve without --wal is noted, not an error.
func (r *appendReport) compareNoWAL(ctx context.Context, stderr io.Writer, cfg *Config) error {
	g := *cfg
	g.serveArgs = append(append([]string(nil), cfg.serveArgs...), "--wal=off")
	s := r.Shape
	progress(stderr, "append, write-ahead log off: %d client(s), %d-op batches, %s", s.Clients, s.Ops, phaseLength(s.Duration, s.Count))
	off, err := onTarget(ctx, &g, func(t *benchTarget) (*appendReport, error) {
		conns, err := openAppenders(ctx, t, s.Clients, s.Shares == "one")
		if err != nil {
			return nil, err
		}
		defer closeConns(conns)
		settle(ctx, s.Duration)
		return appendPhase(ctx, t, conns, s)
	})
	if err != nil && strings.Contains(err.Error(), "unknown flag") {
		r.NoWAL = &noWALReport{Skipped: "this serve has no --wal flag"}
		return nil
	}
	if err != nil {
		return fmt.Errorf("write-ahead log off: %w", err)
	}
	r.NoWAL = &noWALReport{OpsPerSec: off.OpsPerSec, BatchesPerSec: off.BatchesPerSec, Latency: off.Latency,
		CPU: off.CPU, Commits: off.Commits, RPC: ratio(off.BatchesPerSec, r.Ping.CallsPerSec)}
	if r.WALStream != nil {
		r.NoWAL.Throughput = ratio(off.OpsPerSec, r.WALStream.RecordsPerSec*float64(s.Ops))
	}
	return nil
}

// printNoWAL prints the run with the log off, if any.
func printNoWAL(w io.Writer, a *appendReport) {
	n := a.NoWAL
	switch {
	case n == nil:
		return
	case n.Skipped != "":
		fmt.Fprintf(w, "  wal off\tnot measured: %s\n", n.Skipped)
		return
	}
	fmt.Fprintf(w, "  wal off\t%s ops/s, %s batches/s\tp50 %s, p99 %s\tthe same load, serve --wal=off: batches/s ÷ pings/s = %.2f, ops/s ÷ stream ops/s = %.2f\n",
		num(n.OpsPerSec), num(n.BatchesPerSec), msText(n.Latency.P50Ms), msText(n.Latency.P99Ms), n.RPC, n.Throughput)
	c := n.Commits
	fmt.Fprintf(w, "  wal off: commits\t%s group commits\t%.1f calls per commit\tmean commit %s; cpu: vat %.2f, bench %.2f, other %.2f cores\n",
		count(int64(c.Commits)), c.CallsPerCommit, msText(c.MeanCommitMs), n.CPU.VatCores, n.CPU.BenchCores, n.CPU.OtherCores)
}
