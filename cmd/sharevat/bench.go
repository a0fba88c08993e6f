package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"runtime/pprof"
	"slices"
	"sort"
	"strings"
	"time"
)

// benchFlags configure `sharevat bench`. Ints and durations whose default
// depends on the mode are registered as 0 and filled in by defaults().
type benchFlags struct {
	mode        string
	server      string
	tokenFile   string
	json        bool
	clients     int
	shares      string
	ops         int
	body        int
	inflight    int
	duration    time.Duration
	count       int
	ceilingDur  time.Duration
	rate        int
	subscribers int
	conns       int
	sample      time.Duration
	soak        bool
	soakDur     time.Duration
	ceilingDir  string
	cpuprofile  string
	timeout     time.Duration

	set  map[string]bool // flags given on the command line
	args []string        // the command line, as given
}

const benchModes = "append, restore, tail, conns, soak or all"

func (f *benchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "mode", "append", "what to measure: "+benchModes)
	fs.StringVar(&f.server, "server", "", "drive this running vat (loopback ws:// URL) instead of starting one")
	fs.StringVar(&f.tokenFile, "token-file", "", "with --server: file holding the server's admin token")
	fs.BoolVar(&f.json, "json", false, "print one JSON object instead of the table")
	fs.IntVar(&f.clients, "clients", 0, "client connections (default 64; 1 for restore; 16 for soak)")
	fs.StringVar(&f.shares, "shares", "each", "one share per client (each) or one for all (one)")
	fs.IntVar(&f.ops, "ops", 1, "ops per append batch")
	fs.IntVar(&f.body, "body", 200, "bytes per op body (a JSON object padded to this size)")
	fs.IntVar(&f.inflight, "inflight", 0, "calls in flight per connection (default 1; 4 for soak)")
	fs.DurationVar(&f.duration, "duration", 0, "how long each measured phase runs (default 10s; 10m for soak)")
	fs.IntVar(&f.count, "count", 0, "batches (append) or redeems (restore) per client instead of --duration")
	fs.DurationVar(&f.ceilingDur, "ceiling-duration", 0, "how long each ceiling runs (default: --duration)")
	fs.IntVar(&f.rate, "rate", 0, "ops/s of the tail writer (default 1000), calls/s of the soak (default 5000)")
	fs.IntVar(&f.subscribers, "subscribers", 8, "tail: subscribers, each on its own connection")
	fs.IntVar(&f.conns, "conns", 10000, "conns: idle connections to hold, each with a live Reader")
	fs.DurationVar(&f.sample, "sample", 10*time.Second, "soak: time between server samples")
	fs.BoolVar(&f.soak, "soak", false, "all: include the soak")
	fs.DurationVar(&f.soakDur, "soak-duration", 10*time.Minute, "all: how long the soak runs")
	fs.StringVar(&f.ceilingDir, "ceiling-dir", "", "where the bench's own vat directory and the storage ceiling's file go, so on that disk (default: the system temp dir)")
	fs.StringVar(&f.cpuprofile, "cpuprofile", "", "write the bench process's CPU profile to this file")
	fs.DurationVar(&f.timeout, "timeout", 0, "give up after this long (default: 20 × the longest phase + 5m)")
}

// benchApplies lists, per mode, the flags that mean something to it
// (besides the common ones); any other flag is a usage error.
var benchApplies = map[string][]string{
	"append":  {"clients", "shares", "ops", "body", "inflight", "duration", "count", "ceiling-duration"},
	"restore": {"clients", "inflight", "duration", "count", "ceiling-duration"},
	"tail":    {"subscribers", "rate", "body", "duration"},
	"conns":   {"conns"},
	"soak":    {"clients", "shares", "body", "inflight", "rate", "duration", "sample"},
	"all":     {"duration", "ceiling-duration", "conns", "soak", "soak-duration", "rate", "sample"},
}

var benchCommon = []string{"mode", "server", "token-file", "json", "ceiling-dir", "cpuprofile", "timeout"}

func runBench(ctx context.Context, env *Env, args []string) error {
	f := benchFlags{args: slices.Clone(args)}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	f.register(fs)
	fs.Usage = func() { benchUsage(fs) }
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	f.set = map[string]bool{}
	fs.Visit(func(fl *flag.Flag) { f.set[fl.Name] = true })
	if err := f.validate(); err != nil {
		return err
	}
	f.defaults()
	stop, err := startCPUProfile(f.cpuprofile)
	if err != nil {
		return err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	rep, err := runBenchMode(ctx, env, &f)
	if err != nil {
		return err
	}
	rep.Flags = f.effective(fs)
	return writeBenchReport(env, &f, rep)
}

func benchUsage(fs *flag.FlagSet) {
	fmt.Fprintln(fs.Output(), `Usage: sharevat bench [--mode append|restore|tail|conns|soak|all] [flags]

Load generator. By default it starts its own vat (this binary's serve) on a
temporary directory on loopback, drives it, and reads the server's own
heap, goroutines and counters from its /metrics; with --server URL
--token-file F it drives a running vat instead (loopback only). In the same
run it measures the ceilings it compares against: a no-op call (Ping) over
the same connections, and bbolt's raw commit rate for the same batch shape
on the same disk. --json prints every figure as one JSON object.

Modes:
  append   --clients connections append --ops-op batches of --body-byte
           bodies (one share each, or --shares one) for --duration or
           --count batches: ops/s, latency, vat heap/goroutines, commits,
           allocations per op; ratios to the Ping and bbolt ceilings
           (one client: also to bbolt paced with a ping's idle between
           transactions, as the vat idles between sequential calls)
  restore  redeem the owner token over and over: latency vs a Ping
  tail     one writer at --rate ops/s, --subscribers live subscribers:
           delivery latency, and every op received once, in order
  conns    hold --conns idle connections with a live Reader each: vat
           (and bench) memory per connection
  soak     --rate 1-op appends/s over --clients connections for --duration
           (10m): vat heap, RSS, goroutines and data file every --sample;
           growth, also per GiB stored
  all      the performance targets in one run (soak with --soak)

Flags:`)
	fs.PrintDefaults()
}

// runBenchMode runs the chosen mode and returns its report.
func runBenchMode(ctx context.Context, env *Env, f *benchFlags) (*benchReport, error) {
	rep := &benchReport{Mode: f.mode, Machine: machine(), Started: time.Now().UTC().Format(time.RFC3339)}
	var err error
	switch f.mode {
	case "append":
		rep.Append, err = benchAppendRun(ctx, env, f, f.appendShape())
	case "restore":
		rep.Restore, err = benchRestoreRun(ctx, env, f)
	case "tail":
		rep.Tail, err = benchTailRun(ctx, env, f)
	case "conns":
		rep.Conns, err = benchConnsRun(ctx, env, f, f.conns)
	case "soak":
		rep.Soak, err = benchSoakRun(ctx, env, f, f.soakShape(f.duration))
	case "all":
		err = benchAllRun(ctx, env, f, rep)
	}
	if err != nil {
		return nil, err
	}
	if f.mode != "all" {
		rep.Targets = rep.targets()
	}
	return rep, nil
}

// validate checks the flags given: a flag that does not apply to the
// mode, or an absurd value, is a usage error.
func (f *benchFlags) validate() error {
	if _, ok := benchApplies[f.mode]; !ok {
		return usagef("bad --mode %q (want %s)", f.mode, benchModes)
	}
	if err := f.checkApplies(); err != nil {
		return err
	}
	if err := f.checkRanges(); err != nil {
		return err
	}
	return f.checkTarget()
}

func (f *benchFlags) checkApplies() error {
	ok := append(slices.Clone(benchCommon), benchApplies[f.mode]...)
	var bad []string
	for name := range f.set {
		if !slices.Contains(ok, name) {
			bad = append(bad, "--"+name)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return usagef("%s: not used by --mode %s", strings.Join(bad, ", "), f.mode)
	}
	return nil
}

// benchRange is one numeric flag's allowed range, checked when given.
type benchRange struct {
	name   string
	v      int64
	lo, hi int64
	dur    bool // a duration: show as one
}

func (r benchRange) show(v int64) string {
	if r.dur {
		return time.Duration(v).String()
	}
	return fmt.Sprint(v)
}

func (f *benchFlags) ranges() []benchRange {
	ms, s := int64(time.Millisecond), int64(time.Second)
	day := int64(24 * time.Hour)
	return []benchRange{
		{"clients", int64(f.clients), 1, 20000, false},
		{"ops", int64(f.ops), 1, 100000, false},
		{"body", int64(f.body), 2, 16 << 20, false},
		{"inflight", int64(f.inflight), 1, 1024, false},
		{"count", int64(f.count), 1, 1e9, false},
		{"rate", int64(f.rate), 1, 1e6, false},
		{"subscribers", int64(f.subscribers), 1, 10000, false},
		{"conns", int64(f.conns), 1, 200000, false},
		{"duration", int64(f.duration), ms, day, true},
		{"ceiling-duration", int64(f.ceilingDur), ms, day, true},
		{"sample", int64(f.sample), 10 * ms, 3600 * s, true},
		{"soak-duration", int64(f.soakDur), s, day, true},
		{"timeout", int64(f.timeout), s, 2 * day, true},
	}
}

func (f *benchFlags) checkRanges() error {
	for _, r := range f.ranges() {
		if f.set[r.name] && (r.v < r.lo || r.v > r.hi) {
			return usagef("--%s %s is out of range (want %s to %s)", r.name, r.show(r.v), r.show(r.lo), r.show(r.hi))
		}
	}
	if f.shares != "one" && f.shares != "each" {
		return usagef("bad --shares %q (want one or each)", f.shares)
	}
	if n := int64(f.ops) * int64(f.body+benchOpOverhead); n > benchMaxBatchBytes {
		return usagef("--ops × --body makes %d-byte batches; one batch can carry at most %d bytes", n, benchMaxBatchBytes)
	}
	return nil
}

// checkTarget checks --server and --token-file.
func (f *benchFlags) checkTarget() error {
	if f.server == "" {
		if f.tokenFile != "" {
			return usagef("--token-file goes with --server (the bench's own vat needs none)")
		}
		return nil
	}
	if f.tokenFile == "" {
		return usagef("--server needs --token-file with the server's admin token")
	}
	if _, err := metricsURL(f.server); err != nil {
		return usagef("--server: %v", err)
	}
	return nil
}

// modeDefaults are the defaults that depend on the mode.
type modeDefaults struct {
	clients, inflight, rate int
	duration                time.Duration
}

func defaultsFor(mode string) modeDefaults {
	d := modeDefaults{clients: 64, inflight: 1, rate: 1000, duration: 10 * time.Second}
	switch mode {
	case "restore":
		d.clients = 1
	case "soak":
		d.clients, d.inflight, d.rate, d.duration = 16, 4, 5000, 10*time.Minute
	case "all":
		d.rate = 5000 // the soak's
	}
	return d
}

// defaults fills in the flags not given whose default depends on the mode.
func (f *benchFlags) defaults() {
	d := defaultsFor(f.mode)
	f.clients = cmp.Or(f.clients, d.clients)
	f.inflight = cmp.Or(f.inflight, d.inflight)
	f.rate = cmp.Or(f.rate, d.rate)
	f.duration = cmp.Or(f.duration, d.duration)
	f.ceilingDur = cmp.Or(f.ceilingDur, f.duration)
	if f.timeout == 0 {
		longest := max(f.duration, f.ceilingDur)
		if f.mode == "all" && f.soak {
			longest = max(longest, f.soakDur)
		}
		f.timeout = 20*longest + 5*time.Minute
	}
}

// effective returns every flag's value as used (mode defaults filled in).
func (f *benchFlags) effective(fs *flag.FlagSet) map[string]string {
	out := map[string]string{}
	fs.VisitAll(func(fl *flag.Flag) { out[fl.Name] = fl.Value.String() })
	for _, r := range f.ranges() {
		out[r.name] = r.show(r.v)
	}
	if !f.set["count"] {
		out["count"] = "0"
	}
	return out
}

// startCPUProfile starts the bench process's CPU profile, if asked.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	out, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(out); err != nil {
		out.Close()
		return nil, fmt.Errorf("cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); out.Close() }, nil
}
