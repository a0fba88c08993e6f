package loadgen

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
)

// writeReport prints the report: one JSON object with Config.JSON, else
// readable sections and the targets table.
func writeReport(stdout io.Writer, cfg *Config, rep *benchReport) error {
	if cfg.JSON {
		return json.NewEncoder(stdout).Encode(rep)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	printHeader(tw, cfg, rep)
	for _, p := range []func(io.Writer){
		func(w io.Writer) { printAppend(w, rep.Append) },
		func(w io.Writer) { printRestore(w, rep.Restore) },
		func(w io.Writer) { printTail(w, rep.Tail) },
		func(w io.Writer) { printConns(w, rep.Conns) },
		func(w io.Writer) { printSoak(w, rep.Soak) },
	} {
		p(tw)
	}
	if r := rep.Runs; r != nil {
		for _, a := range []*appendReport{r.Append64x1, r.Append64x100, r.Append1x1} {
			printAppend(tw, a)
		}
		printRestore(tw, r.Restore)
		printTail(tw, r.Tail)
		printConns(tw, r.Conns)
		printSoak(tw, r.Soak)
	}
	printTargets(tw, rep.Targets)
	return tw.Flush()
}

func printHeader(w io.Writer, cfg *Config, rep *benchReport) {
	m := rep.Machine
	fmt.Fprintf(w, "sharevat bench --mode %s, %s\n", rep.Mode, rep.Started)
	fmt.Fprintf(w, "machine: %s/%s, %d CPUs (%s), %s, %s RAM\n", m.GOOS, m.GOARCH, m.NumCPU, cmp.Or(m.CPUModel, "-"), m.GoVersion, bytesText(float64(m.MemTotalBytes)))
	vat := "its own child process on loopback, fresh data directory per run"
	if cfg.Server != "" {
		vat = cfg.Server
	}
	fmt.Fprintf(w, "vat: %s\n", vat)
}

func printAppend(w io.Writer, a *appendReport) {
	if a == nil {
		return
	}
	s := a.Shape
	shares := map[string]string{"each": "one share per client", "one": "all on one share"}[s.Shares]
	fmt.Fprintf(w, "\nappend: %d client(s) × %d-op batches of %d-byte bodies, %s, %d call(s) in flight per connection, %.1fs\n",
		s.Clients, s.Ops, s.Body, shares, s.Inflight, a.Seconds)
	fmt.Fprintf(w, "  throughput\t%s ops/s\t%s batches/s\t(%s batches)\n", num(a.OpsPerSec), num(a.BatchesPerSec), count(a.Batches))
	printLatency(w, "  latency", a.Latency, "per append call, client side")
	printServer(w, a.Server)
	printCPU(w, a.CPU)
	c := a.Commits
	fmt.Fprintf(w, "  commits\t%s group commits\t%.1f ops, %.1f calls per commit\tmean commit %s, mean server append %s\n",
		count(int64(c.Commits)), c.OpsPerCommit, c.CallsPerCommit, msText(c.MeanCommitMs), msText(c.MeanAppendMs))
	fmt.Fprintf(w, "  client\t%.1f allocs/op\t%s/op\t(this process)\n", a.ClientAllocsPerOp, bytesText(a.ClientBytesPerOp))
	printPing(w, a.Ping)
	if a.Transport != nil {
		fmt.Fprintf(w, "  transport ceiling\t%s\n", a.Transport)
	}
	st := a.Storage
	fmt.Fprintf(w, "  storage ceiling\t%s tx/s, %s puts/s\tp50 %s, p99 %s\tbbolt, %d put(s) of %d B per tx\n",
		num(st.TxPerSec), num(st.PutsPerSec), msText(st.P50Ms), msText(st.P99Ms), st.PutsPerTx, st.ValueBytes)
	if p := a.StoragePaced; p != nil {
		fmt.Fprintf(w, "  storage, paced\tp50 %s, p99 %s\tthe same with %s idle between tx\t(as the vat idles between sequential calls)\n",
			msText(p.P50Ms), msText(p.P99Ms), msText(p.PauseMs))
	}
	fmt.Fprintf(w, "  ratios\tbatches/s ÷ pings/s = %.2f\tops/s ÷ store puts/s = %.2f", a.Ratios.RPC, a.Ratios.Storage)
	if a.Ratios.Latency != 0 {
		fmt.Fprintf(w, "\tp50 ÷ (commit p50 + ping p50) = %.2f", a.Ratios.Latency)
	}
	if a.Ratios.LatencyPaced != 0 {
		fmt.Fprintf(w, "; with the paced commit %.2f", a.Ratios.LatencyPaced)
	}
	fmt.Fprintln(w)
	printWAL(w, a)
}

func printLatency(w io.Writer, label string, l latencies, note string) {
	fmt.Fprintf(w, "%s\tp50 %s  p95 %s\tp99 %s  max %s\t(%s)\n", label, msText(l.P50Ms), msText(l.P95Ms), msText(l.P99Ms), msText(l.MaxMs), note)
}

func printServer(w io.Writer, s serverReport) {
	fmt.Fprintf(w, "  vat\theap in use %s (peak %s)\t%s (peak %s)\tgoroutines %.0f (peak %.0f)\n",
		bytesText(s.End.HeapInuse), bytesText(s.Peak.HeapInuse), rssText(s.End), bytesText(s.Peak.RSS),
		s.End.Goroutines, s.Peak.Goroutines)
}

// rssText is "RSS x" or, when known, "RSS x (anon y)".
func rssText(m serverMem) string {
	if m.RSSAnon == 0 {
		return "RSS " + bytesText(m.RSS)
	}
	return fmt.Sprintf("RSS %s (anon %s)", bytesText(m.RSS), bytesText(m.RSSAnon))
}

func printCPU(w io.Writer, c cpuReport) {
	fmt.Fprintf(w, "  cpu\tvat %.2f cores\tbench %.2f cores\tother processes %.2f cores (averages over the phase)\n", c.VatCores, c.BenchCores, c.OtherCores)
}

func printPing(w io.Writer, p pingReport) {
	fmt.Fprintf(w, "  rpc ceiling\t%s pings/s\tp50 %s, p99 %s\tover %d connection(s), %d in flight each; cpu: vat %.2f, bench %.2f, other %.2f cores\n",
		num(p.CallsPerSec), msText(p.Latency.P50Ms), msText(p.Latency.P99Ms), p.Conns, p.Inflight, p.CPU.VatCores, p.CPU.BenchCores, p.CPU.OtherCores)
}

func printRestore(w io.Writer, r *restoreReport) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\nrestore: %d client(s) redeeming the owner token, %d in flight each, %.1fs\n", r.Clients, r.Inflight, r.Seconds)
	fmt.Fprintf(w, "  rate\t%s redeems/s\t(%s redeems; vat counted %s ok)\n", num(r.RedeemsPerSec), count(r.Redeems), count(int64(r.ServerOK)))
	printLatency(w, "  latency", r.Latency, "per redeem, client side")
	printServer(w, r.Server)
	printCPU(w, r.CPU)
	printPing(w, r.Ping)
	fmt.Fprintf(w, "  ratio\tp50 ÷ ping p50 = %.2f\n", r.Ratio)
}

func printTail(w io.Writer, t *tailReport) {
	if t == nil {
		return
	}
	fmt.Fprintf(w, "\ntail: 1 writer at %s ops/s, %d subscriber(s), %.1fs\n", count(t.Rate), t.Subscribers, t.Seconds)
	fmt.Fprintf(w, "  writer\t%s ops/s\t(%s ops in %s batches)\n", num(t.SentPerSec), count(t.Sent), count(t.Batches))
	printLatency(w, "  delivery", t.Delivery, "op built by the writer → received by a subscriber")
	printLatency(w, "  append", t.Writer, "the writer's append calls")
	v := t.Violations
	fmt.Fprintf(w, "  check\t%s deliveries, drained in %s\tmissing %d, duplicates %d, out of order %d, unreadable %d, ended %d\n",
		count(t.Delivered), msText(t.DrainMs), v.Missing, v.Duplicates, v.OutOfOrder, v.Unreadable, v.Ended)
	printServer(w, t.Server)
}

func printConns(w io.Writer, c *connsReport) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "\nconns: %s idle connections, each holding a live Reader\n", count(c.Conns))
	fmt.Fprintf(w, "  open\t%.1fs (%s/s)\tclose %.1fs\n", c.OpenSeconds, num(c.OpenPerSec), c.CloseSeconds)
	b, a := c.ServerBefore, c.ServerAfter
	fmt.Fprintf(w, "  vat\theap %s → %s\t%s → %s\tgoroutines %.0f → %.0f\n",
		bytesText(b.HeapInuse), bytesText(a.HeapInuse), rssText(b), rssText(a), b.Goroutines, a.Goroutines)
	for _, side := range []struct {
		name string
		s    connsSide
	}{{"  vat per conn", c.Server}, {"  client per conn", c.Client}} {
		fmt.Fprintf(w, "%s\tmemory %s\theap %s, stacks %s, RSS %s\tgoroutines %.1f\n", side.name, bytesText(side.s.MemoryPerConn),
			bytesText(side.s.HeapPerConn), bytesText(side.s.StackPerConn), bytesText(side.s.RSSPerConn), side.s.GoroutinesPerConn)
	}
}

func printSoak(w io.Writer, s *soakReport) {
	if s == nil {
		return
	}
	sh := s.Shape
	fmt.Fprintf(w, "\nsoak: %s calls/s of 1-op appends over %d connection(s) × %d in flight, %.0fs\n", count(sh.Rate), sh.Clients, sh.Inflight, s.Seconds)
	fmt.Fprintf(w, "  rate\t%s calls/s achieved\t(%s calls, %s permits dropped)\n", num(s.CallsPerSec), count(s.Calls), count(s.Dropped))
	fmt.Fprintf(w, "  retention\t%s\n", sh.Retention)
	fmt.Fprintf(w, "  log\t%s\n", s.Log)
	printLatency(w, "  latency", s.Latency, "per append call")
	printCPU(w, s.CPU)
	fmt.Fprintf(w, "  sample\tat\theap in use\tRSS\tRSS anon\tgoroutines\tstore\tcalls/s\tp99\n")
	for _, x := range s.Samples {
		fmt.Fprintf(w, "  \t%.0fs\t%s\t%s\t%s\t%.0f\t%s\t%s\t%s\n", x.AtSeconds, bytesText(x.HeapInuse), bytesText(x.RSS),
			bytesText(x.RSSAnon), x.Goroutines, bytesText(x.StoreBytes), num(x.CallsPerSec), msText(x.P99Ms))
	}
	g := s.Growth
	fmt.Fprintf(w, "  growth\tfrom %.0fs to the end\theap %+.1f%% (peaks %+.1f%%)\tRSS %+.1f%% (anon %+.1f%%)\tgoroutines %+.1f%%\n",
		g.BaseAtSeconds, 100*g.HeapInuse, 100*g.HeapPeak, 100*g.RSS, 100*g.RSSAnon, 100*g.Goroutines)
	fmt.Fprintf(w, "  per data\tstore %s (%.0f bytes per op appended)\tvat memory %s\t%s per GiB stored\n", signedBytes(g.StoredBytes),
		g.StoredPerOp, signedBytes(g.MemoryBytes), signedBytes(g.MemoryPerStoredGiB))
}

// signedBytes is bytesText with a plus sign on growth.
func signedBytes(b float64) string {
	if b >= 0 {
		return "+" + bytesText(b)
	}
	return bytesText(b)
}

func printTargets(w io.Writer, rows []targetRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nTARGET\tMEASURED\tCEILING\tRATIO\tWANT\tRESULT\n")
	for _, r := range rows {
		result, ratio := "-", "-"
		if r.Pass != nil {
			result = map[bool]string{true: "pass", false: "FAIL"}[*r.Pass]
		}
		if r.Ratio != 0 {
			ratio = fmt.Sprintf("%.2f", r.Ratio)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Target, r.Measured, r.Ceiling, ratio, r.Want, result)
	}
}
