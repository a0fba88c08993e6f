package loadgen

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// restoreReport is a restore run: redeeming the owner token over and
// over, against a no-op call on the same connections.
type restoreReport struct {
	Clients       int          `json:"clients"`
	Inflight      int          `json:"inflight_per_conn"`
	Seconds       float64      `json:"seconds"`
	Redeems       int64        `json:"redeems"`
	RedeemsPerSec float64      `json:"redeems_per_sec"`
	Latency       latencies    `json:"latency"`
	ServerOK      float64      `json:"server_redeems_ok"` // sharevat_redeems_total{result="ok"} delta
	Server        serverReport `json:"server"`
	CPU           cpuReport    `json:"cpu"`
	Ping          pingReport   `json:"rpc_ceiling"`
	Ratio         float64      `json:"p50_over_ping_p50"`
}

func benchRestoreRun(ctx context.Context, stderr io.Writer, cfg *Config) (*restoreReport, error) {
	return onTarget(ctx, cfg, func(t *benchTarget) (*restoreReport, error) { return restoreWithCeiling(ctx, stderr, t, cfg) })
}

func restoreWithCeiling(ctx context.Context, stderr io.Writer, t *benchTarget, cfg *Config) (*restoreReport, error) {
	toks, err := t.createShares(ctx, 1)
	if err != nil {
		return nil, err
	}
	conns, err := openConns(ctx, t, make([]string, cfg.Clients), false)
	if err != nil {
		return nil, err
	}
	defer closeConns(conns)
	progress(stderr, "rpc ceiling: ping over %d connection(s), %s", cfg.Clients, cfg.CeilingDuration)
	ping, err := pingPhase(ctx, t, conns, cfg.Inflight, cfg.CeilingDuration)
	if err != nil {
		return nil, err
	}
	settle(ctx, cfg.Duration)
	progress(stderr, "restore: %d client(s) redeeming the owner token, %s", cfg.Clients, phaseLength(cfg.Duration, cfg.Count))
	rep, err := restorePhase(ctx, t, conns, toks[0], cfg)
	if err != nil {
		return nil, err
	}
	rep.Ping = ping
	rep.Ratio = ratio(rep.Latency.P50Ms, ping.Latency.P50Ms)
	return rep, nil
}

func restorePhase(ctx context.Context, t *benchTarget, conns []*benchConn, token string, cfg *Config) (*restoreReport, error) {
	spec := loopSpec{workers: len(conns) * cfg.Inflight, d: cfg.Duration, count: cfg.Count}
	redeem := func(ctx context.Context, w, _ int) error {
		sh, err := conns[(w%spec.workers)/cfg.Inflight].conn.Redeem(ctx, token)
		if err != nil {
			return fmt.Errorf("bench: redeem: %w", err)
		}
		sh.Release()
		return nil
	}
	if err := warmUp(ctx, spec, redeem); err != nil {
		return nil, err
	}
	settle(ctx, cfg.Duration)
	before, err := t.scrape(ctx)
	if err != nil {
		return nil, err
	}
	cpu := t.startCPU(ctx)
	sampler := startSampler(ctx, t, 500*time.Millisecond)
	var h latHist
	res, err := timedLoop(ctx, spec, &h, redeem)
	after, serr := t.scrape(ctx)
	peak := sampler.Stop(memOf(after))
	if err = firstErr(err, serr); err != nil {
		return nil, err
	}
	return &restoreReport{
		Clients: len(conns), Inflight: cfg.Inflight, Seconds: res.elapsed.Seconds(), Redeems: res.calls,
		RedeemsPerSec: rateOf(float64(res.calls), res.elapsed), Latency: h.Summary(),
		ServerOK: counterDelta{before, after}.of(`sharevat_redeems_total{result="ok"}`),
		Server:   serverReport{End: memOf(after), Peak: peak}, CPU: cpu.stop(ctx),
	}, nil
}

// firstErr returns the first non-nil error.
func firstErr(errs ...error) error {
	i := slices.IndexFunc(errs, func(e error) bool { return e != nil })
	if i < 0 {
		return nil
	}
	return errs[i]
}
