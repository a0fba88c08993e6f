package loadgen

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// transportRounds is how many times the transport ceiling alternates its
// echo and ping phases: the machine's idle latency drifts over minutes,
// so each ratio compares two phases measured a moment apart, and the
// report takes the median of the ratios.
const transportRounds = 3

// transportReport is the transport ceiling: a raw WebSocket echo of a
// ping-sized message to a helper process, over as many connections as the
// ping uses, alternating with the ping phases.
type transportReport struct {
	Conns  int              `json:"conns"`
	Rounds []transportRound `json:"rounds"`
	// Echo is every echo phase together.
	EchoCallsPerSec float64   `json:"echo_calls_per_sec"`
	EchoLatency     latencies `json:"echo_latency"`
	// The medians over the rounds of ping ÷ echo.
	PingP50OverEcho  float64 `json:"ping_p50_over_echo_p50"`
	PingRateOverEcho float64 `json:"ping_rate_over_echo_rate"`
	PingCPUOverEcho  float64 `json:"ping_cpu_per_call_over_echo_cpu_per_call"`
	// EchoCPUPerCallUs and PingCPUPerCallUs are both processes' CPU per
	// call (bench + helper, bench + vat), medians over the rounds.
	EchoCPUPerCallUs float64 `json:"echo_cpu_per_call_us"`
	PingCPUPerCallUs float64 `json:"ping_cpu_per_call_us"`
	// OtherCores is what the rest of the machine used meanwhile (the
	// highest over the phases): other load skews every figure.
	OtherCores float64 `json:"other_cores_max"`
}

// transportRound is one echo phase and the ping phase after it.
type transportRound struct {
	EchoP50Ms        float64 `json:"echo_p50_ms"`
	PingP50Ms        float64 `json:"ping_p50_ms"`
	EchoPerSec       float64 `json:"echo_per_sec"`
	PingPerSec       float64 `json:"ping_per_sec"`
	EchoCPUPerCallUs float64 `json:"echo_cpu_per_call_us"`
	PingCPUPerCallUs float64 `json:"ping_cpu_per_call_us"`
}

// rpcCeilings measures the RPC ceiling (ping) and, when the bench can
// start its echo helper (t.exe), the transport ceiling, alternating them
// transportRounds times within d. Without the helper it is pingPhase.
func rpcCeilings(ctx context.Context, stderr io.Writer, t *benchTarget, conns []*benchConn, inflight int, d time.Duration) (pingReport, *transportReport, error) {
	if t.exe == "" || inflight != 1 {
		ping, err := pingPhase(ctx, t, conns, inflight, d)
		return ping, nil, err
	}
	progress(stderr, "transport ceiling: raw WebSocket echo of %d B over %d connection(s), alternating with ping, %d rounds", pingFrameBytes, len(conns), transportRounds)
	h, err := startEchoHelper(ctx, t.exe)
	if err != nil {
		return pingReport{}, nil, err
	}
	defer h.close()
	echo, err := dialEchoConns(ctx, h, len(conns))
	defer closeConns(echo)
	if err != nil {
		return pingReport{}, nil, err
	}
	return alternate(ctx, t, h, conns, echo, d/transportRounds)
}

func dialEchoConns(ctx context.Context, h *echoHelper, n int) ([]*echoConn, error) {
	out := make([]*echoConn, n)
	err := forEach(ctx, n, benchDialPar, func(ctx context.Context, i int) error {
		var err error
		out[i], err = h.dial(ctx)
		return err
	})
	return out, err
}

// alternate runs the echo and ping phases transportRounds times, each
// for d, and sums them up.
func alternate(ctx context.Context, t *benchTarget, h *echoHelper, conns []*benchConn, echo []*echoConn, d time.Duration) (pingReport, *transportReport, error) {
	var pings []pingReport
	var echoHist latHist
	rep := &transportReport{Conns: len(conns)}
	var echoCalls int64
	var echoSecs float64
	for range transportRounds {
		e, err := echoPhase(ctx, t, h, echo, d, &echoHist)
		if err != nil {
			return pingReport{}, nil, err
		}
		p, err := pingPhase(ctx, t, conns, 1, d)
		if err != nil {
			return pingReport{}, nil, err
		}
		pings = append(pings, p)
		echoCalls += e.calls
		echoSecs += e.seconds
		pingCPU := ratio((p.CPU.VatCores+p.CPU.BenchCores)*p.Seconds*1e6, float64(p.Calls))
		rep.Rounds = append(rep.Rounds, transportRound{
			EchoP50Ms: e.p50Ms, PingP50Ms: p.Latency.P50Ms, EchoPerSec: ratio(float64(e.calls), e.seconds),
			PingPerSec: p.CallsPerSec, EchoCPUPerCallUs: e.cpuPerCallUs, PingCPUPerCallUs: pingCPU,
		})
		rep.OtherCores = max(rep.OtherCores, e.otherCores, p.CPU.OtherCores)
	}
	rep.EchoCallsPerSec = ratio(float64(echoCalls), echoSecs)
	rep.EchoLatency = echoHist.Summary()
	rep.medians()
	return mergePings(pings), rep, nil
}

// medians sets the report's ratios from its rounds.
func (r *transportReport) medians() {
	med := func(f func(transportRound) float64) float64 {
		v := make([]float64, 0, len(r.Rounds))
		for _, x := range r.Rounds {
			v = append(v, f(x))
		}
		return median(v)
	}
	r.PingP50OverEcho = med(func(x transportRound) float64 { return ratio(x.PingP50Ms, x.EchoP50Ms) })
	r.PingRateOverEcho = med(func(x transportRound) float64 { return ratio(x.PingPerSec, x.EchoPerSec) })
	r.PingCPUOverEcho = med(func(x transportRound) float64 { return ratio(x.PingCPUPerCallUs, x.EchoCPUPerCallUs) })
	r.EchoCPUPerCallUs = med(func(x transportRound) float64 { return x.EchoCPUPerCallUs })
	r.PingCPUPerCallUs = med(func(x transportRound) float64 { return x.PingCPUPerCallUs })
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	v = slices.Clone(v)
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// echoResult is one echo phase.
type echoResult struct {
	calls        int64
	seconds      float64
	p50Ms        float64
	cpuPerCallUs float64 // bench + helper
	otherCores   float64
}

// echoPhase runs one round trip at a time on every echo connection for
// d, timing each into all too.
func echoPhase(ctx context.Context, t *benchTarget, h *echoHelper, echo []*echoConn, d time.Duration, all *latHist) (echoResult, error) {
	spec := loopSpec{workers: len(echo), d: d}
	call := func(_ context.Context, w, _ int) error { return echo[w%len(echo)].roundTrip() } // warmUp numbers workers from len(echo)
	if err := warmUp(ctx, spec, call); err != nil {
		return echoResult{}, err
	}
	helper0, err := h.cpu(ctx)
	if err != nil {
		return echoResult{}, err
	}
	cpu := t.startCPU(ctx)
	var hist latHist
	res, err := timedLoop(ctx, spec, &hist, call)
	if err != nil {
		return echoResult{}, err
	}
	used := cpu.stop(ctx)
	helper1, err := h.cpu(ctx)
	if err != nil {
		return echoResult{}, err
	}
	all.Merge(&hist)
	secs := res.elapsed.Seconds()
	helperCores := (helper1 - helper0).Seconds() / secs
	return echoResult{
		calls: res.calls, seconds: secs, p50Ms: ms(hist.Quantile(0.5)),
		cpuPerCallUs: ratio((used.BenchCores+helperCores)*secs*1e6, float64(res.calls)),
		otherCores:   max(0, used.OtherCores+used.VatCores-helperCores),
	}, nil
}

// mergePings sums the ping phases of the rounds into one report.
func mergePings(ps []pingReport) pingReport {
	if len(ps) == 0 {
		return pingReport{}
	}
	out := pingReport{Conns: ps[0].Conns, Inflight: ps[0].Inflight}
	var p50s, p99s, maxes []float64
	for _, p := range ps {
		out.Seconds += p.Seconds
		out.Calls += p.Calls
		out.CPU.VatCores += p.CPU.VatCores * p.Seconds
		out.CPU.BenchCores += p.CPU.BenchCores * p.Seconds
		out.CPU.OtherCores += p.CPU.OtherCores * p.Seconds
		p50s, p99s, maxes = append(p50s, p.Latency.P50Ms), append(p99s, p.Latency.P99Ms), append(maxes, p.Latency.MaxMs)
	}
	out.CallsPerSec = ratio(float64(out.Calls), out.Seconds)
	out.CPU.VatCores /= out.Seconds
	out.CPU.BenchCores /= out.Seconds
	out.CPU.OtherCores /= out.Seconds
	out.Latency = ps[len(ps)/2].Latency
	out.Latency.P50Ms, out.Latency.P99Ms, out.Latency.MaxMs = median(p50s), median(p99s), slices.Max(maxes)
	return out
}

// String is the transport ceiling's line in the report.
func (r *transportReport) String() string {
	return fmt.Sprintf("%s echoes/s\tp50 %s, p99 %s\tcpu %.0f µs per echo (bench + helper); ping ÷ echo (median of %d rounds): p50 %.2f, rate %.2f, cpu per call %.2f; other processes ≤ %.2f cores",
		num(r.EchoCallsPerSec), msText(r.EchoLatency.P50Ms), msText(r.EchoLatency.P99Ms), r.EchoCPUPerCallUs,
		len(r.Rounds), r.PingP50OverEcho, r.PingRateOverEcho, r.PingCPUOverEcho, r.OtherCores)
}
