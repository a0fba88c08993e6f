package loadgen

import (
	"context"
	"io"
	"sync"
	"time"
)

// soakShape is a soak's load: 1-op appends at a fixed rate.
type soakShape struct {
	Clients  int           `json:"clients"`
	Shares   string        `json:"shares"`
	Inflight int           `json:"inflight_per_conn"`
	Body     int           `json:"body_bytes"`
	Rate     int           `json:"rate_target"`
	Duration time.Duration `json:"-"`
	Sample   time.Duration `json:"-"`
	// Retention is set on each share before the run.
	Retention soakRetention `json:"retention"`
}

func (cfg *Config) soakShape(d time.Duration) soakShape {
	return soakShape{Clients: cfg.Clients, Shares: cfg.Shares, Inflight: cfg.Inflight, Body: cfg.Body, Rate: cfg.Rate, Duration: d,
		Sample: cfg.Sample, Retention: retentionOf(cfg)}
}

// soakSample is the vat at one moment of a soak, with the load of the
// interval before it.
type soakSample struct {
	AtSeconds   float64 `json:"at_seconds"`
	HeapInuse   float64 `json:"heap_inuse_bytes"`
	RSS         float64 `json:"rss_bytes"`
	RSSAnon     float64 `json:"rss_anon_bytes,omitempty"`
	Goroutines  float64 `json:"goroutines"`
	StoreBytes  float64 `json:"store_bytes"` // the data file in use (sharevat_store_bytes)
	CallsPerSec float64 `json:"calls_per_sec"`
	P99Ms       float64 `json:"p99_ms"`
}

// memory is the vat's own memory: anonymous RSS when known, else RSS.
func (s soakSample) memory() float64 {
	if s.RSSAnon > 0 {
		return s.RSSAnon
	}
	return s.RSS
}

// soakReport is a soak: the samples and how much memory grew.
type soakReport struct {
	Shape       soakShape    `json:"shape"`
	Seconds     float64      `json:"seconds"`
	Calls       int64        `json:"calls"`
	CallsPerSec float64      `json:"calls_per_sec"`
	Dropped     int64        `json:"permits_dropped"` // calls the workers were too busy to make
	Latency     latencies    `json:"latency"`
	CPU         cpuReport    `json:"cpu"`
	Samples     []soakSample `json:"samples"`
	Growth      soakGrowth   `json:"growth"`
	Log         soakLog      `json:"log"` // the shares at the end
}

// soakGrowth compares the sample at the baseline (minute 2, or a fifth
// of a shorter soak) with the last one, as fractions (0.05 = +5%).
// HeapPeak compares the highest heap of the first and the second half
// after the baseline, which a sample caught before or after a GC cannot
// sway. RSS includes the pages of bbolt's memory-mapped data file, which
// grow with the file; RSSAnon (the bench's own vat only) does not.
// Appends store data, and some of bbolt's memory grows with the data file
// (see docs/decisions.md), so the growth is also given per GiB stored.
type soakGrowth struct {
	BaseAtSeconds float64 `json:"base_at_seconds"`
	HeapInuse     float64 `json:"heap_inuse"`
	RSS           float64 `json:"rss"`
	RSSAnon       float64 `json:"rss_anon"`
	Goroutines    float64 `json:"goroutines"`
	HeapPeak      float64 `json:"heap_inuse_peak"`
	// StoredBytes is how much the data file in use grew; MemoryBytes how
	// much the vat's own memory (RSSAnon, or RSS) grew, and
	// MemoryPerStoredGiB the one over the other.
	StoredBytes        float64 `json:"stored_bytes"`
	MemoryBytes        float64 `json:"memory_bytes"`
	MemoryPerStoredGiB float64 `json:"memory_bytes_per_stored_gib"`
	// StoredPerOp is StoredBytes over the ops appended meanwhile (each
	// sample's rate over its interval): with retention, what a compacted
	// op leaves in the file.
	StoredPerOp float64 `json:"stored_bytes_per_op"`
	// Flat: the vat's own memory (RSSAnon, or RSS when unknown) and the
	// heap peak grew less than soakFlat.
	Flat bool `json:"flat"`
}

const soakFlat = 0.10

func benchSoakRun(ctx context.Context, stderr io.Writer, cfg *Config, shape soakShape) (*soakReport, error) {
	return onTarget(ctx, cfg, func(t *benchTarget) (*soakReport, error) { return soakRun(ctx, stderr, t, shape) })
}

func soakRun(ctx context.Context, stderr io.Writer, t *benchTarget, shape soakShape) (*soakReport, error) {
	conns, err := openAppenders(ctx, t, shape.Clients, shape.Shares == "one")
	if err != nil {
		return nil, err
	}
	defer closeConns(conns)
	shares := soakShares(conns, shape)
	if err := retain(ctx, shares, shape.Retention); err != nil {
		return nil, err
	}
	progress(stderr, "soak: %d calls/s of 1-op appends over %d connection(s), %s, sampling every %s; retention %s",
		shape.Rate, shape.Clients, shape.Duration, shape.Sample, shape.Retention)
	var cur latHist
	s := startSoakSampler(ctx, t, &cur, shape.Sample)
	cpu := t.startCPU(ctx)
	start := time.Now()
	p := startPacer(ctx, shape.Rate, shape.Duration)
	w := newWorkers(ctx)
	body := jsonBody(shape.Body)
	for wk := range shape.Clients * shape.Inflight {
		w.Go(func(ctx context.Context) error {
			c := conns[wk/shape.Inflight]
			for i := 0; ; i++ {
				if _, ok := <-p.C; !ok {
					return nil
				}
				t0 := time.Now()
				if err := appendOne(ctx, c, benchBatch(wk, i, 1, body, c.share.Access.Epoch)); err != nil {
					return err
				}
				cur.Record(time.Since(t0))
			}
		})
	}
	err = w.Wait()
	p.Wait()
	elapsed := time.Since(start)
	cpuUse := cpu.stop(ctx)
	samples, total, serr := s.Stop(ctx)
	if err = firstErr(err, serr); err != nil {
		return nil, err
	}
	shareLog, err := logOf(ctx, shares)
	if err != nil {
		return nil, err
	}
	calls := int64(total.Count())
	return &soakReport{
		Shape: shape, Seconds: elapsed.Seconds(), Calls: calls, CallsPerSec: rateOf(float64(calls), elapsed),
		Dropped: p.dropped.Load(), Latency: total.Summary(), CPU: cpuUse, Samples: samples,
		Growth: growthOf(samples, shape.Duration), Log: shareLog,
	}, nil
}

// soakSampler scrapes the vat every interval, and once more at Stop.
type soakSampler struct {
	t       *benchTarget
	cur     *latHist
	total   latHist
	start   time.Time
	last    time.Time
	stop    chan struct{}
	wg      sync.WaitGroup
	samples []soakSample
	err     error
}

func startSoakSampler(ctx context.Context, t *benchTarget, cur *latHist, every time.Duration) *soakSampler {
	s := &soakSampler{t: t, cur: cur, start: time.Now(), stop: make(chan struct{})}
	s.last = s.start
	s.wg.Go(func() {
		tick := time.NewTicker(every)
		defer tick.Stop()
		for s.err == nil {
			select {
			case <-s.stop:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				s.sample(ctx)
			}
		}
	})
	return s
}

func (s *soakSampler) sample(ctx context.Context) {
	p, err := s.t.scrape(ctx)
	if err != nil {
		s.err = err
		return
	}
	now := time.Now()
	h := s.cur.Take()
	s.total.Merge(h)
	m := memOf(p)
	s.samples = append(s.samples, soakSample{
		AtSeconds: now.Sub(s.start).Seconds(), HeapInuse: m.HeapInuse, RSS: m.RSS, RSSAnon: m.RSSAnon, Goroutines: m.Goroutines,
		StoreBytes: p.get(seriesStoreBytes), CallsPerSec: rateOf(float64(h.Count()), now.Sub(s.last)), P99Ms: ms(h.Quantile(0.99)),
	})
	s.last = now
}

// Stop takes the last sample and returns them all, with every latency.
func (s *soakSampler) Stop(ctx context.Context) ([]soakSample, *latHist, error) {
	close(s.stop)
	s.wg.Wait()
	if s.err == nil {
		s.sample(ctx)
	}
	return s.samples, &s.total, s.err
}

// growthOf compares the baseline sample (at minute 2, or at a fifth of
// a shorter soak) with the last.
func growthOf(samples []soakSample, d time.Duration) soakGrowth {
	if len(samples) < 2 {
		return soakGrowth{}
	}
	baseAt := min(2*time.Minute, d/5).Seconds()
	b := len(samples) - 2
	for i, s := range samples {
		if s.AtSeconds >= baseAt {
			b = min(i, len(samples)-2)
			break
		}
	}
	base, last := samples[b], samples[len(samples)-1]
	g := soakGrowth{
		BaseAtSeconds: base.AtSeconds,
		HeapInuse:     growth(base.HeapInuse, last.HeapInuse),
		RSS:           growth(base.RSS, last.RSS),
		RSSAnon:       growth(base.RSSAnon, last.RSSAnon),
		Goroutines:    growth(base.Goroutines, last.Goroutines),
		HeapPeak:      heapPeakGrowth(samples[b:]),
	}
	mem := growth(base.memory(), last.memory())
	g.Flat = mem < soakFlat && g.HeapPeak < soakFlat
	g.StoredBytes, g.MemoryBytes = last.StoreBytes-base.StoreBytes, last.memory()-base.memory()
	g.MemoryPerStoredGiB = ratio(g.MemoryBytes, g.StoredBytes/(1<<30))
	g.StoredPerOp = ratio(g.StoredBytes, opsBetween(samples[b:]))
	return g
}

// opsBetween is how many ops were appended from the first sample to the
// last: each later sample's rate times its interval.
func opsBetween(samples []soakSample) float64 {
	var n float64
	for i := 1; i < len(samples); i++ {
		n += samples[i].CallsPerSec * (samples[i].AtSeconds - samples[i-1].AtSeconds)
	}
	return n
}

// heapPeakGrowth compares the highest heap of the second half of the
// samples with that of the first half.
func heapPeakGrowth(samples []soakSample) float64 {
	mid := (len(samples) + 1) / 2
	peak := func(ss []soakSample) float64 {
		p := 0.0
		for _, s := range ss {
			p = max(p, s.HeapInuse)
		}
		return p
	}
	return growth(peak(samples[:mid]), peak(samples[mid:]))
}

func growth(from, to float64) float64 { return ratio(to-from, from) }
