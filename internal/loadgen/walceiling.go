package loadgen

import (
	"context"
	"fmt"
	"io"

	"github.com/sharevat/sharevat/store/bolt/wal"
)

// walReport is a write-ahead log ceiling: raw record appends, one write
// and one fdatasync each, on the vat's disk (wal.Ceiling).
type walReport struct {
	RecordBytes   int     `json:"record_bytes"`
	Records       int     `json:"records_per_write"`
	Writes        int     `json:"writes"`
	WritesPerSec  float64 `json:"writes_per_sec"`
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	P50Ms         float64 `json:"p50_ms"`
	P99Ms         float64 `json:"p99_ms"`
}

// walRatios are our figures over the log ceilings'.
type walRatios struct {
	// LatencyOverhead (one client): (our p50 − ping p50) ÷ one record
	// append + fdatasync p50 (the target: ≤ 1.3).
	LatencyOverhead float64 `json:"p50_minus_ping_over_wal_append_p50,omitempty"`
	// Throughput: our ops/s ÷ the ops/s the raw sequential write +
	// fdatasync of the same bytes carries (target for 64 × 100-op
	// batches: ≥ 0.6).
	Throughput float64 `json:"ops_per_sec_over_wal_stream_ops_per_sec"`
	// With the transport ceiling: our p50 ÷ (echo p50 + one record
	// append + fdatasync p50), and (our p50 − echo p50) ÷ the append's
	// p50 (the target for one client: ≤ 1.2).
	OverEchoPlusWAL    float64 `json:"p50_over_echo_plus_wal_append_p50,omitempty"`
	EchoLatencyOverWAL float64 `json:"p50_minus_echo_over_wal_append_p50,omitempty"`
}

// walRecordBytes estimates the log record of one batch of the shape:
// each entry's body, ids, kind and fixed fields.
func walRecordBytes(s appendShape) int { return s.Ops * (s.Body + 96) }

// walCeilings measures the log ceilings for the run's shape: one record
// of a batch per write (the sequential client's), and as many records
// per write as there are clients (a full group: the stream).
func (r *appendReport) walCeilings(ctx context.Context, stderr io.Writer, dir string) error {
	s := r.Shape
	rec := walRecordBytes(s)
	progress(stderr, "wal ceiling: one %d-byte record per write + fdatasync, then %d per write, %s each", rec, s.Clients, s.CeilingDur)
	one, err := walCeiling(ctx, dir, wal.CeilingShape{RecordBytes: rec, Records: 1, Duration: s.CeilingDur})
	if err != nil {
		return err
	}
	stream, err := walCeiling(ctx, dir, wal.CeilingShape{RecordBytes: rec, Records: max(s.Clients*s.Inflight, 1), Duration: s.CeilingDur})
	if err != nil {
		return err
	}
	r.WALAppend, r.WALStream = &one, &stream
	r.WALRatios = &walRatios{Throughput: ratio(r.OpsPerSec, stream.RecordsPerSec*float64(s.Ops))}
	if tr := r.Transport; tr != nil && one.P50Ms > 0 {
		r.WALRatios.OverEchoPlusWAL = ratio(r.Latency.P50Ms, tr.EchoLatency.P50Ms+one.P50Ms)
		r.WALRatios.EchoLatencyOverWAL = (r.Latency.P50Ms - tr.EchoLatency.P50Ms) / one.P50Ms
	}
	if r.sequential() && one.P50Ms > 0 {
		r.WALRatios.LatencyOverhead = (r.Latency.P50Ms - r.Ping.Latency.P50Ms) / one.P50Ms
	}
	return nil
}

func walCeiling(ctx context.Context, dir string, sh wal.CeilingShape) (walReport, error) {
	c, err := wal.Ceiling(ctx, dir, sh)
	if err != nil {
		return walReport{}, err
	}
	return walReport{RecordBytes: c.RecordBytes, Records: c.Records, Writes: c.Writes, WritesPerSec: c.WritesPerSec,
		RecordsPerSec: c.RecordsPerSec, MBPerSec: c.BytesPerSec / 1e6, P50Ms: ms(c.P50), P99Ms: ms(c.P99)}, nil
}

// printWAL prints the log ceilings and ratios of an append run.
func printWAL(w io.Writer, a *appendReport) {
	if a.WALAppend == nil || a.WALStream == nil || a.WALRatios == nil {
		return
	}
	fmt.Fprintf(w, "  wal append ceiling\tp50 %s, p99 %s\tone %d-B record, write + fdatasync\n",
		msText(a.WALAppend.P50Ms), msText(a.WALAppend.P99Ms), a.WALAppend.RecordBytes)
	fmt.Fprintf(w, "  wal stream ceiling\t%.1f MB/s, %s records/s\t%d records per write + fdatasync\n",
		a.WALStream.MBPerSec, num(a.WALStream.RecordsPerSec), a.WALStream.Records)
	fmt.Fprintf(w, "  wal ratios\tops/s ÷ stream ops/s = %.2f", a.WALRatios.Throughput)
	if a.WALRatios.LatencyOverhead != 0 {
		fmt.Fprintf(w, "\t(p50 − ping p50) ÷ wal append p50 = %.2f", a.WALRatios.LatencyOverhead)
	}
	if a.WALRatios.OverEchoPlusWAL != 0 {
		fmt.Fprintf(w, "\tp50 ÷ (echo p50 + wal append p50) = %.2f\t(p50 − echo p50) ÷ wal append p50 = %.2f",
			a.WALRatios.OverEchoPlusWAL, a.WALRatios.EchoLatencyOverWAL)
	}
	fmt.Fprintln(w)
	printNoWAL(w, a)
}
