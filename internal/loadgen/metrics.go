package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// promSample is one scrape of a Prometheus text page: series (the name,
// with its labels as printed) → value.
type promSample map[string]float64

// parsePromText reads the Prometheus text format minimally: comment lines
// are skipped, every other line is `name{labels} value [timestamp]`.
func parsePromText(r io.Reader) (promSample, error) {
	out := promSample{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		series, value, ok := splitSeries(line)
		if !ok {
			continue
		}
		if v, err := strconv.ParseFloat(value, 64); err == nil {
			out[series] = v
		}
	}
	return out, sc.Err()
}

// splitSeries splits a sample line into its series and its value; label
// values may hold spaces, so the series ends at the closing brace.
func splitSeries(line string) (series, value string, ok bool) {
	end := strings.IndexAny(line, "{ ")
	if end < 0 {
		return "", "", false
	}
	if line[end] == '{' {
		close := strings.LastIndexByte(line, '}')
		if close < end {
			return "", "", false
		}
		end = close + 1
	}
	fields := strings.Fields(line[end:])
	if len(fields) == 0 {
		return "", "", false
	}
	return line[:end], fields[0], true
}

// get returns the series name without labels or, if absent, the sum of
// every series of that name.
func (p promSample) get(name string) float64 {
	if v, ok := p[name]; ok {
		return v
	}
	sum := 0.0
	for k, v := range p {
		if strings.HasPrefix(k, name+"{") {
			sum += v
		}
	}
	return sum
}

// scrape fetches and parses the vat's /metrics.
func (t *benchTarget) scrape(ctx context.Context) (promSample, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.Metrics, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, fmt.Errorf("bench: metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("bench: metrics: HTTP %s", resp.Status)
	}
	p, err := parsePromText(resp.Body)
	if err == nil && t.Child {
		p[seriesRSSAnon], p[seriesRSSFile] = procRSS(t.cmd.Process.Pid)
	}
	return p, err
}

// Series the bench adds to its own vat's scrapes, from /proc/<pid>/status:
// RSS split into anonymous memory and file-backed pages (bbolt maps its
// data file, so the latter grows with the file, not with what the vat
// holds).
const (
	seriesRSSAnon = "bench_rss_anon_bytes"
	seriesRSSFile = "bench_rss_file_bytes"
)

// seriesStoreBytes is the vat's gauge of its data file in use.
const seriesStoreBytes = "sharevat_store_bytes"

// serverMem is the vat's memory and goroutines at one moment.
type serverMem struct {
	HeapInuse  float64 `json:"heap_inuse_bytes"`
	HeapAlloc  float64 `json:"heap_alloc_bytes"`
	StackInuse float64 `json:"stack_inuse_bytes"`
	RSS        float64 `json:"rss_bytes"`
	RSSAnon    float64 `json:"rss_anon_bytes,omitempty"` // the bench's own vat only
	RSSFile    float64 `json:"rss_file_bytes,omitempty"`
	Goroutines float64 `json:"goroutines"`
	Conns      float64 `json:"live_connections"`
	Caps       float64 `json:"live_capabilities"`
}

func memOf(p promSample) serverMem {
	return serverMem{
		HeapInuse: p.get("go_memstats_heap_inuse_bytes"), HeapAlloc: p.get("go_memstats_heap_alloc_bytes"),
		StackInuse: p.get("go_memstats_stack_inuse_bytes"),
		RSS:        p.get("process_resident_memory_bytes"), RSSAnon: p[seriesRSSAnon], RSSFile: p[seriesRSSFile],
		Goroutines: p.get("go_goroutines"),
		Conns:      p.get("sharevat_live_connections"), Caps: p.get("sharevat_live_capabilities"),
	}
}

// memory is the vat's own memory: anonymous RSS when known, else RSS.
func (m serverMem) memory() float64 {
	if m.RSSAnon > 0 {
		return m.RSSAnon
	}
	return m.RSS
}

// peakOf keeps the larger of each figure.
func peakOf(a, b serverMem) serverMem {
	return serverMem{
		HeapInuse: max(a.HeapInuse, b.HeapInuse), HeapAlloc: max(a.HeapAlloc, b.HeapAlloc),
		StackInuse: max(a.StackInuse, b.StackInuse),
		RSS:        max(a.RSS, b.RSS), RSSAnon: max(a.RSSAnon, b.RSSAnon), RSSFile: max(a.RSSFile, b.RSSFile),
		Goroutines: max(a.Goroutines, b.Goroutines),
		Conns:      max(a.Conns, b.Conns), Caps: max(a.Caps, b.Caps),
	}
}

// serverReport is the vat's side of a phase: memory at the end and peak
// during it.
type serverReport struct {
	End  serverMem `json:"end"`
	Peak serverMem `json:"peak"`
}

// memSampler scrapes the vat's /metrics every interval until stopped,
// keeping the peaks.
type memSampler struct {
	t      *benchTarget
	every  time.Duration
	stop   chan struct{}
	wg     sync.WaitGroup
	mu     sync.Mutex
	peak   serverMem
	errors int
}

// startSampler starts sampling; Stop ends it and waits.
func startSampler(ctx context.Context, t *benchTarget, every time.Duration) *memSampler {
	s := &memSampler{t: t, every: every, stop: make(chan struct{})}
	s.wg.Go(func() { s.run(ctx) })
	return s
}

func (s *memSampler) run(ctx context.Context) {
	tick := time.NewTicker(s.every)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
			s.sampleOnce(ctx)
		}
	}
}

func (s *memSampler) sampleOnce(ctx context.Context) {
	p, err := s.t.scrape(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.errors++
		return
	}
	s.peak = peakOf(s.peak, memOf(p))
}

// Stop ends the sampling and returns the peaks, counting end as a sample.
func (s *memSampler) Stop(end serverMem) serverMem {
	close(s.stop)
	s.wg.Wait()
	return peakOf(s.peak, end)
}

// counterDelta is the change of some server counters over a phase.
type counterDelta struct{ before, after promSample }

func (d counterDelta) of(name string) float64 { return d.after.get(name) - d.before.get(name) }

// commitReport is what the vat's group commit did during a phase.
type commitReport struct {
	Commits        float64 `json:"commits"`
	OpsPerCommit   float64 `json:"ops_per_commit"`
	CallsPerCommit float64 `json:"calls_per_commit"`
	MeanCommitMs   float64 `json:"mean_commit_ms"`
	Appends        float64 `json:"appends"`
	MeanAppendMs   float64 `json:"mean_append_ms"` // server side, commit included
}

func commitsOf(d counterDelta) commitReport {
	c := commitReport{Commits: d.of("sharevat_commits_total"), Appends: d.of("sharevat_appends_total")}
	if n := d.of("sharevat_commit_ops_count"); n > 0 {
		c.OpsPerCommit = d.of("sharevat_commit_ops_sum") / n
		c.CallsPerCommit = d.of("sharevat_commit_calls_sum") / d.of("sharevat_commit_calls_count")
		c.MeanCommitMs = 1e3 * d.of("sharevat_commit_duration_seconds_sum") / d.of("sharevat_commit_duration_seconds_count")
	}
	if n := d.of("sharevat_append_duration_seconds_count"); n > 0 {
		c.MeanAppendMs = 1e3 * d.of("sharevat_append_duration_seconds_sum") / n
	}
	return c
}

// cpuReport is how many CPU cores the vat and the bench process used
// during a phase, on average, and what the rest of the machine used
// meanwhile (other load skews the figures; 0 when unknown).
type cpuReport struct {
	VatCores   float64 `json:"vat_cores"`
	BenchCores float64 `json:"bench_cores"`
	OtherCores float64 `json:"other_cores"`
}

// cpuMeter measures a phase's CPU use.
type cpuMeter struct {
	t       *benchTarget
	start   time.Time
	self    time.Duration
	machine time.Duration
	vat     float64 // process_cpu_seconds_total; -1 if unknown
}

func (t *benchTarget) startCPU(ctx context.Context) cpuMeter {
	return cpuMeter{t: t, start: time.Now(), self: selfCPU(), machine: machineBusy(), vat: t.cpuSeconds(ctx)}
}

func (m cpuMeter) stop(ctx context.Context) cpuReport {
	el := time.Since(m.start)
	r := cpuReport{BenchCores: rateOf((selfCPU() - m.self).Seconds(), el)}
	if vat := m.t.cpuSeconds(ctx); vat >= 0 && m.vat >= 0 {
		r.VatCores = rateOf(vat-m.vat, el)
	}
	if m.machine > 0 {
		r.OtherCores = max(0, rateOf((machineBusy()-m.machine).Seconds(), el)-r.VatCores-r.BenchCores)
	}
	return r
}

// cpuSeconds is the vat's CPU time so far, or -1.
func (t *benchTarget) cpuSeconds(ctx context.Context) float64 {
	p, err := t.scrape(ctx)
	if err != nil {
		return -1
	}
	return p.get("process_cpu_seconds_total")
}
