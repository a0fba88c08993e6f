package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// appendShape is what an append run sends.
type appendShape struct {
	Clients    int           `json:"clients"`
	Shares     string        `json:"shares"` // "each": one share per client; "one": all on one
	Ops        int           `json:"ops_per_batch"`
	Body       int           `json:"body_bytes"`
	Inflight   int           `json:"inflight_per_conn"`
	Count      int           `json:"count_per_client,omitempty"`
	Duration   time.Duration `json:"-"`
	CeilingDur time.Duration `json:"-"`
}

func (cfg *Config) appendShape() appendShape {
	return appendShape{Clients: cfg.Clients, Shares: cfg.Shares, Ops: cfg.Ops, Body: cfg.Body, Inflight: cfg.Inflight,
		Count: cfg.Count, Duration: cfg.Duration, CeilingDur: cfg.CeilingDuration}
}

// appendReport is an append run: the load, the vat's side, and the
// ceilings measured in the same run with our figures as their ratios.
type appendReport struct {
	Shape             appendShape  `json:"shape"`
	Seconds           float64      `json:"seconds"`
	Batches           int64        `json:"batches"`
	Ops               int64        `json:"ops"`
	OpsPerSec         float64      `json:"ops_per_sec"`
	BatchesPerSec     float64      `json:"batches_per_sec"`
	Latency           latencies    `json:"latency"` // per append call, client side
	Server            serverReport `json:"server"`
	CPU               cpuReport    `json:"cpu"`
	Commits           commitReport `json:"commits"`
	ClientAllocsPerOp float64      `json:"client_allocs_per_op"`
	ClientBytesPerOp  float64      `json:"client_bytes_per_op"`
	Ping              pingReport   `json:"rpc_ceiling"`
	// Transport is the raw WebSocket echo, measured alternating with the
	// ping phases (transport.go); nil when the bench has no helper.
	Transport *transportReport `json:"transport_ceiling,omitempty"`
	Storage   storageReport    `json:"storage_ceiling"`
	// StoragePaced (one client, one call in flight) is the storage
	// ceiling again with the process idle between transactions for a
	// ping's p50, as the vat is between sequential appends: on a VM an
	// idle CPU makes the next commit slower (see docs/performance.md).
	StoragePaced *storageReport `json:"storage_ceiling_paced,omitempty"`
	Ratios       appendRatios   `json:"ratios"`
	// The write-ahead log's ceilings (walceiling.go) and our ratios to them.
	WALAppend *walReport `json:"wal_append_ceiling,omitempty"`
	WALStream *walReport `json:"wal_stream_ceiling,omitempty"`
	WALRatios *walRatios `json:"wal_ratios,omitempty"`
	// NoWAL is the same load on a vat with the write-ahead log off.
	NoWAL *noWALReport `json:"wal_off,omitempty"`
}

// appendRatios are our figures over the ceilings'.
type appendRatios struct {
	RPC     float64 `json:"batches_per_sec_over_ping_calls_per_sec"`
	Storage float64 `json:"ops_per_sec_over_store_puts_per_sec"`
	// Latency is set for one client with one call in flight: our p50 over
	// (the store's p50 commit + the ping p50); LatencyPaced the same with
	// the paced commit p50.
	Latency      float64 `json:"p50_over_commit_plus_ping_p50,omitempty"`
	LatencyPaced float64 `json:"p50_over_paced_commit_plus_ping_p50,omitempty"`
}

// benchAppendRun runs an append bench on a vat of its own (or Config.Server):
// the RPC ceiling, the append load, then the storage ceiling.
// On its own vat it then runs the same load on a vat with the
// write-ahead log off, for comparison (walcompare.go).
func benchAppendRun(ctx context.Context, stderr io.Writer, cfg *Config, shape appendShape) (*appendReport, error) {
	rep, err := onTarget(ctx, cfg, func(t *benchTarget) (*appendReport, error) { return appendWithCeilings(ctx, stderr, t, shape) })
	if err != nil || cfg.Server != "" {
		return rep, err
	}
	return rep, rep.compareNoWAL(ctx, stderr, cfg)
}

func appendWithCeilings(ctx context.Context, stderr io.Writer, t *benchTarget, shape appendShape) (*appendReport, error) {
	conns, err := openAppenders(ctx, t, shape.Clients, shape.Shares == "one")
	if err != nil {
		return nil, err
	}
	defer func() { closeConns(conns) }()
	progress(stderr, "rpc ceiling: ping over %d connection(s), %d in flight each, %s", shape.Clients, shape.Inflight, shape.CeilingDur)
	ping, transport, err := rpcCeilings(ctx, stderr, t, conns, shape.Inflight, shape.CeilingDur)
	if err != nil {
		return nil, err
	}
	settle(ctx, shape.Duration)
	progress(stderr, "append: %d client(s), %d-op batches of %d-byte bodies, %s", shape.Clients, shape.Ops, shape.Body, phaseLength(shape.Duration, shape.Count))
	rep, err := appendPhase(ctx, t, conns, shape)
	if err != nil {
		return nil, err
	}
	closeConns(conns)
	conns = nil
	rep.Ping, rep.Transport = ping, transport
	if err := rep.storageCeilings(ctx, stderr, t.ceilingDir); err != nil {
		return nil, err
	}
	rep.ratios()
	if err := rep.walCeilings(ctx, stderr, t.ceilingDir); err != nil {
		return nil, err
	}
	return rep, nil
}

// storageCeilings measures the storage ceiling for the run's batch shape
// and, for sequential appends, the paced one.
func (r *appendReport) storageCeilings(ctx context.Context, stderr io.Writer, dir string) error {
	s := r.Shape
	sh := bolt.CeilingShape{Puts: s.Ops, ValueBytes: s.Body, Duration: s.CeilingDur}
	progress(stderr, "storage ceiling: bbolt transactions of %d put(s) of %d bytes, %s", s.Ops, s.Body, s.CeilingDur)
	var err error
	if r.Storage, err = storageCeiling(ctx, dir, sh); err != nil || !r.sequential() {
		return err
	}
	sh.Pause = time.Duration(r.Ping.Latency.P50Ms * float64(time.Millisecond))
	progress(stderr, "storage ceiling, paced: the same with %s idle between transactions, %s", sh.Pause.Round(time.Microsecond), s.CeilingDur)
	paced, err := storageCeiling(ctx, dir, sh)
	r.StoragePaced = &paced
	return err
}

// sequential reports one client with one call in flight.
func (r *appendReport) sequential() bool { return r.Shape.Clients == 1 && r.Shape.Inflight == 1 }

func (r *appendReport) ratios() {
	r.Ratios = appendRatios{
		RPC:     ratio(r.BatchesPerSec, r.Ping.CallsPerSec),
		Storage: ratio(r.OpsPerSec, r.Storage.PutsPerSec),
	}
	if r.sequential() {
		r.Ratios.Latency = ratio(r.Latency.P50Ms, r.Storage.P50Ms+r.Ping.Latency.P50Ms)
	}
	if r.StoragePaced != nil {
		r.Ratios.LatencyPaced = ratio(r.Latency.P50Ms, r.StoragePaced.P50Ms+r.Ping.Latency.P50Ms)
	}
}

// openAppenders creates the shares (one for all clients, or one each) and
// opens one connection per client holding an Appender.
func openAppenders(ctx context.Context, t *benchTarget, clients int, one bool) ([]*benchConn, error) {
	tokens, err := shareTokens(ctx, t, clients, one)
	if err != nil {
		return nil, err
	}
	return openConns(ctx, t, tokens, true)
}

// shareTokens creates the shares of a run: one per client, or one for
// all; it returns each client's owner token.
func shareTokens(ctx context.Context, t *benchTarget, clients int, one bool) ([]string, error) {
	n := clients
	if one {
		n = 1
	}
	toks, err := t.createShares(ctx, n)
	if err != nil {
		return nil, err
	}
	out := make([]string, clients)
	for i := range out {
		out[i] = toks[i%n]
	}
	return out, nil
}

// appendPhase is the measured load: every worker appends batches, one
// call at a time, while the vat's memory is sampled.
func appendPhase(ctx context.Context, t *benchTarget, conns []*benchConn, shape appendShape) (*appendReport, error) {
	body := jsonBody(shape.Body)
	spec := loopSpec{workers: len(conns) * shape.Inflight, d: shape.Duration, count: shape.Count}
	call := func(ctx context.Context, w, i int) error {
		c := conns[(w%spec.workers)/shape.Inflight]
		return appendOne(ctx, c, benchBatch(w, i, shape.Ops, body, c.share.Access.Epoch))
	}
	if err := warmUp(ctx, spec, call); err != nil {
		return nil, err
	}
	before, err := t.scrape(ctx)
	if err != nil {
		return nil, err
	}
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu := t.startCPU(ctx)
	sampler := startSampler(ctx, t, 500*time.Millisecond)
	var h latHist
	res, err := timedLoop(ctx, spec, &h, call)
	runtime.ReadMemStats(&m1)
	after, serr := t.scrape(ctx)
	peak := sampler.Stop(memOf(after))
	if err = firstErr(err, serr); err != nil {
		return nil, err
	}
	ops := float64(res.calls) * float64(shape.Ops)
	return &appendReport{
		CPU:   cpu.stop(ctx),
		Shape: shape, Seconds: res.elapsed.Seconds(), Batches: res.calls, Ops: int64(ops),
		OpsPerSec: rateOf(ops, res.elapsed), BatchesPerSec: rateOf(float64(res.calls), res.elapsed),
		Latency: h.Summary(), Server: serverReport{End: memOf(after), Peak: peak},
		Commits:           commitsOf(counterDelta{before, after}),
		ClientAllocsPerOp: ratio(float64(m1.Mallocs-m0.Mallocs), ops),
		ClientBytesPerOp:  ratio(float64(m1.TotalAlloc-m0.TotalAlloc), ops),
	}, nil
}

// errBenchRejected reports ops the vat refused during a bench.
var errBenchRejected = errors.New("the vat rejected ops")

// appendOne sends one batch; every op must be applied.
func appendOne(ctx context.Context, c *benchConn, b *sharevat.Batch) error {
	ack, err := c.app.Append(ctx, b)
	if err != nil {
		return fmt.Errorf("bench: append: %w", err)
	}
	if ack.Applied == len(b.Ops) {
		return nil
	}
	for _, r := range ack.Results {
		if r.Status != sharevat.StatusApplied {
			return fmt.Errorf("%w: op %s %s %s %s", errBenchRejected, r.OpID, r.Status, r.Reason, r.Message)
		}
	}
	return fmt.Errorf("%w: %d of %d applied", errBenchRejected, ack.Applied, len(b.Ops))
}

// benchBatch is worker w's i-th batch: n events with the given body and
// ids unique within the run.
func benchBatch(w, i, n int, body []byte, epoch sharevat.Epoch) *sharevat.Batch {
	prefix := "w" + strconv.Itoa(w) + "." + strconv.Itoa(i)
	ops := make([]sharevat.Op, n)
	for k := range ops {
		ops[k] = sharevat.Op{OpID: prefix + "." + strconv.Itoa(k), Seq: uint32(k), Kind: sharevat.KindEvent, Body: body}
	}
	return &sharevat.Batch{BatchID: prefix, Epoch: epoch, Ops: ops}
}

// jsonBody is a JSON object of exactly n ≥ 2 bytes.
func jsonBody(n int) []byte {
	if n < 8 {
		return []byte("{" + strings.Repeat(" ", n-2) + "}")
	}
	return []byte(`{"p":"` + strings.Repeat("x", n-8) + `"}`)
}

// phaseLength says how long a phase runs.
func phaseLength(d time.Duration, count int) string {
	if count > 0 {
		return fmt.Sprintf("%d calls per worker", count)
	}
	return d.String()
}

// progress tells the user, on stderr, what the bench is measuring now.
func progress(stderr io.Writer, format string, args ...any) {
	fmt.Fprintf(stderr, "sharevat bench: "+format+"\n", args...)
}

// orExited prefers "the vat died" to the error it caused.
func orExited(t *benchTarget, err error) error {
	if e := t.exited(); e != nil {
		return e
	}
	return err
}
