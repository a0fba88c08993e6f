package loadgen

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// benchReport is everything one `sharevat bench` run measured.
type benchReport struct {
	Mode    string            `json:"mode"`
	Started string            `json:"started"`
	Machine machineInfo       `json:"machine"`
	Flags   map[string]string `json:"flags"`
	Append  *appendReport     `json:"append,omitempty"`
	Restore *restoreReport    `json:"restore,omitempty"`
	Tail    *tailReport       `json:"tail,omitempty"`
	Conns   *connsReport      `json:"conns,omitempty"`
	Soak    *soakReport       `json:"soak,omitempty"`
	Runs    *allRuns          `json:"runs,omitempty"` // the mode all
	Targets []targetRow       `json:"targets"`
}

// machineInfo says where the figures come from.
type machineInfo struct {
	GOOS          string `json:"goos"`
	GOARCH        string `json:"goarch"`
	NumCPU        int    `json:"num_cpu"`
	GOMAXPROCS    int    `json:"gomaxprocs"`
	GoVersion     string `json:"go_version"`
	CPUModel      string `json:"cpu_model,omitempty"`
	MemTotalBytes uint64 `json:"mem_total_bytes,omitempty"`
	Kernel        string `json:"kernel,omitempty"`
}

func machine() machineInfo {
	m := machineInfo{GOOS: runtime.GOOS, GOARCH: runtime.GOARCH, NumCPU: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), GoVersion: runtime.Version()}
	m.CPUModel = procField("/proc/cpuinfo", "model name")
	if kb, err := strconv.ParseUint(strings.TrimSuffix(procField("/proc/meminfo", "MemTotal"), " kB"), 10, 64); err == nil {
		m.MemTotalBytes = kb << 10
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

// procField returns the value of the first "key: value" line of a
// /proc file, or "".
func procField(path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// targetRow is one of the targets: what we measured, what we
// compare it with, the ratio and whether it passes. Pass is nil for a
// figure with no target.
type targetRow struct {
	Target   string  `json:"target"`
	Measured string  `json:"measured"`
	Ceiling  string  `json:"ceiling"`
	Ratio    float64 `json:"ratio"`
	Want     string  `json:"want"`
	Pass     *bool   `json:"pass"`
}

func passIf(ok bool) *bool { return &ok }

// targets are the targets a single-mode run's shape matches.
func (r *benchReport) targets() []targetRow {
	rows := []targetRow{}
	if a := r.Append; a != nil {
		s := a.Shape
		if s.Clients == allClients && s.Ops == 1 && s.Inflight == 1 {
			rows = append(rows, rowRPC(a))
		}
		if s.Clients == allClients && s.Ops == allBigBatch && s.Body == allBody && s.Inflight == 1 {
			rows = append(rows, rowStorage(a))
		}
		if s.Clients == 1 && s.Ops == 1 && s.Inflight == 1 {
			rows = append(rows, rowLatency(a))
		}
		if s.Ops == 1 {
			rows = append(rows, transportRows(a)...)
		}
	}
	all := allRuns{Restore: r.Restore, Conns: r.Conns, Soak: r.Soak, Tail: r.Tail}
	return append(rows, all.targets()...)
}

func rowRPC(a *appendReport) targetRow {
	return targetRow{
		Target:   fmt.Sprintf("%d clients, %d-op batches: batches/s vs no-op calls/s", a.Shape.Clients, a.Shape.Ops),
		Measured: fmt.Sprintf("%s batches/s", num(a.BatchesPerSec)),
		Ceiling:  fmt.Sprintf("%s pings/s", num(a.Ping.CallsPerSec)),
		Ratio:    a.Ratios.RPC, Want: "≥ 0.8", Pass: passIf(a.Ratios.RPC >= 0.8),
	}
}

func rowStorage(a *appendReport) targetRow {
	return targetRow{
		Target:   fmt.Sprintf("%d clients, %d-op batches of %d B: ops/s vs raw store puts/s", a.Shape.Clients, a.Shape.Ops, a.Shape.Body),
		Measured: fmt.Sprintf("%s ops/s", num(a.OpsPerSec)),
		Ceiling:  fmt.Sprintf("%s puts/s (%d-put tx)", num(a.Storage.PutsPerSec), a.Storage.PutsPerTx),
		Ratio:    a.Ratios.Storage, Want: "≥ 0.5", Pass: passIf(a.Ratios.Storage >= 0.5),
	}
}

func rowLatency(a *appendReport) targetRow {
	return targetRow{
		Target:   "1 client, sequential 1-op appends: p50 vs commit p50 + no-op p50",
		Measured: fmt.Sprintf("p50 %s", msText(a.Latency.P50Ms)),
		Ceiling:  fmt.Sprintf("%s + %s", msText(a.Storage.P50Ms), msText(a.Ping.Latency.P50Ms)),
		Ratio:    a.Ratios.Latency, Want: "≤ 1.5", Pass: passIf(a.Ratios.Latency <= 1.5),
	}
}

func rowRestore(r *restoreReport) targetRow {
	return targetRow{
		Target:   fmt.Sprintf("restore (%d client): p50 vs no-op p50", r.Clients),
		Measured: fmt.Sprintf("p50 %s", msText(r.Latency.P50Ms)),
		Ceiling:  fmt.Sprintf("p50 %s", msText(r.Ping.Latency.P50Ms)),
		Ratio:    r.Ratio, Want: "≤ 2", Pass: passIf(r.Ratio <= 2),
	}
}

// connsLimit is the target memory per idle connection.
const connsLimit = 64 << 10

func rowConns(c *connsReport) targetRow {
	per := c.Server.MemoryPerConn
	return targetRow{
		Target:   fmt.Sprintf("%s idle conns with a live Reader: vat bytes/conn", count(c.Conns)),
		Measured: fmt.Sprintf("%s (heap %s, stacks %s)", bytesText(per), bytesText(c.Server.HeapPerConn), bytesText(c.Server.StackPerConn)),
		Ceiling:  bytesText(connsLimit),
		Ratio:    per / connsLimit, Want: "≤ 1", Pass: passIf(per <= connsLimit),
	}
}

func rowSoak(s *soakReport) targetRow {
	g := s.Growth
	rateOK := s.CallsPerSec >= 0.95*float64(s.Shape.Rate)
	mem, kind := g.RSSAnon, "RSS anon"
	if s.Samples[0].RSSAnon == 0 {
		mem, kind = g.RSS, "RSS"
	}
	target := fmt.Sprintf("memory flat at %s calls/s for %s (from %.0fs)", count(s.Shape.Rate), s.Shape.Duration, g.BaseAtSeconds)
	if r := s.Shape.Retention; r.on() {
		target += ", retention: " + r.String()
	}
	return targetRow{
		Target: target,
		Measured: fmt.Sprintf("%s %+.1f%%, heap peak %+.1f%%, at %s calls/s; %s per GiB stored", kind, 100*mem, 100*g.HeapPeak,
			num(s.CallsPerSec), signedBytes(g.MemoryPerStoredGiB)),
		Ceiling: fmt.Sprintf("< %.0f%%, ≥ 95%% of the rate", 100*soakFlat),
		Ratio:   max(mem, g.HeapPeak), Want: fmt.Sprintf("< %.2f", soakFlat), Pass: passIf(g.Flat && rateOK),
	}
}

func rowTail(t *tailReport) targetRow {
	return targetRow{
		Target: fmt.Sprintf("tail: %d subscribers, writer at %s ops/s: each op once, in order", t.Subscribers, count(t.Rate)),
		Measured: fmt.Sprintf("delivery p50 %s p99 %s, %d violations", msText(t.Delivery.P50Ms), msText(t.Delivery.P99Ms),
			t.Violations.total()),
		Ceiling: "-", Want: "0 violations", Pass: passIf(t.Violations.total() == 0),
	}
}

// num formats a figure with thousands separators and few decimals.
func num(v float64) string {
	switch {
	case v >= 100 || v <= -100:
		return groupDigits(strconv.FormatFloat(v, 'f', 0, 64))
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// count formats a whole number with thousands separators.
func count[T ~int | ~int64](v T) string { return groupDigits(strconv.FormatInt(int64(v), 10)) }

func groupDigits(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func msText(v float64) string {
	if v < 1 {
		return strconv.FormatFloat(v*1000, 'f', 0, 64) + " µs"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + " ms"
}

func bytesText(v float64) string {
	switch a := max(v, -v); {
	case a >= 1<<30:
		return fmt.Sprintf("%.2f GiB", v/(1<<30))
	case a >= 1<<20:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case a >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}
