package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat/internal/loadgen"
)

// benchFlags are the flags of `sharevat bench`, bound to the load
// generator's Config. Ints and durations whose default depends on the
// mode are registered as 0 and filled in by Config.WithDefaults.
type benchFlags struct {
	cfg loadgen.Config
	set map[string]bool // flags given on the command line
}

const benchModes = "append, restore, tail, conns, soak or all"

func (f *benchFlags) register(fs *pflag.FlagSet) {
	c := &f.cfg
	*c = loadgen.DefaultConfig()
	fs.StringVar(&c.Mode, "mode", c.Mode, "what to measure: "+benchModes)
	fs.StringVar(&c.Server, "server", "", "drive this running vat (loopback ws:// URL) instead of starting one")
	fs.StringVar(&c.TokenFile, "token-file", "", "with --server: file holding the server's admin token")
	fs.BoolVar(&c.JSON, "json", false, "print one JSON object instead of the table")
	fs.IntVar(&c.Clients, "clients", 0, "client connections (default 64; 1 for restore; 16 for soak)")
	fs.StringVar(&c.Shares, "shares", c.Shares, "one share per client (each) or one for all (one)")
	fs.IntVar(&c.Ops, "ops", c.Ops, "ops per append batch")
	fs.IntVar(&c.Body, "body", c.Body, "bytes per op body (a JSON object padded to this size)")
	fs.IntVar(&c.Inflight, "inflight", 0, "calls in flight per connection (default 1; 4 for soak)")
	fs.DurationVar(&c.Duration, "duration", 0, "how long each measured phase runs (default 10s; 10m for soak)")
	fs.IntVar(&c.Count, "count", 0, "batches (append) or redeems (restore) per client instead of --duration")
	fs.DurationVar(&c.CeilingDuration, "ceiling-duration", 0, "how long each ceiling runs (default: --duration)")
	fs.IntVar(&c.Rate, "rate", 0, "ops/s of the tail writer (default 1000), calls/s of the soak (default 5000)")
	fs.IntVar(&c.Subscribers, "subscribers", c.Subscribers, "tail: subscribers, each on its own connection")
	fs.IntVar(&c.Conns, "conns", c.Conns, "conns: idle connections to hold, each with a live Reader")
	fs.DurationVar(&c.Sample, "sample", c.Sample, "soak: time between server samples")
	fs.Uint64Var(&c.RetainOps, "retain-ops", 0, "soak: set each share's retention to keep the last N ops (default: no retention)")
	fs.DurationVar(&c.RetainFor, "retain-for", 0, "soak: set each share's retention to keep the ops of the last D (default: no retention)")
	fs.BoolVar(&c.Soak, "soak", false, "all: include the soak")
	fs.DurationVar(&c.SoakDuration, "soak-duration", c.SoakDuration, "all: how long the soak runs")
	fs.StringVar(&c.CeilingDir, "ceiling-dir", "", "where the bench's own vat directory and the storage ceiling's file go, so on that disk (default: the system temp dir)")
	fs.StringVar(&c.CPUProfile, "cpuprofile", "", "write the bench process's CPU profile to this file")
	fs.DurationVar(&c.Timeout, "timeout", 0, "give up after this long (default: 20 × the longest phase + 5m)")
}

// benchApplies lists, per mode, the flags that mean something to it
// (besides the common ones); any other flag is a usage error.
var benchApplies = map[string][]string{
	"append":  {"clients", "shares", "ops", "body", "inflight", "duration", "count", "ceiling-duration"},
	"restore": {"clients", "inflight", "duration", "count", "ceiling-duration"},
	"tail":    {"subscribers", "rate", "body", "duration"},
	"conns":   {"conns"},
	"soak":    {"clients", "shares", "body", "inflight", "rate", "duration", "sample", "retain-ops", "retain-for"},
	"all":     {"duration", "ceiling-duration", "conns", "soak", "soak-duration", "rate", "sample"},
}

var benchCommon = []string{"mode", "server", "token-file", "json", "ceiling-dir", "cpuprofile", "timeout"}

var benchCommand = command{
	name:    "bench",
	args:    "[--mode append|restore|tail|conns|soak|all] [flags]",
	summary: "measure throughput, latency and memory against the ceilings (load generator)",
	long: `Load generator. By default it starts its own vat (this binary's serve) on a
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
           growth, also per GiB stored. --retain-ops N and/or --retain-for D
           set each share's retention first (as 'sharevat retention
           --keep-ops/--keep-for'): the vat compacts the logs meanwhile
  all      the performance targets in one run (soak with --soak)`,
	setup: func(fs *pflag.FlagSet) runner {
		var f benchFlags
		f.register(fs)
		return func(ctx context.Context, env *Env) error { return runBench(ctx, env, &f, fs) }
	},
}

// runBench checks bench's flags and runs the load generator.
func runBench(ctx context.Context, env *Env, f *benchFlags, fs *pflag.FlagSet) error {
	f.set = map[string]bool{}
	fs.Visit(func(fl *pflag.Flag) { f.set[fl.Name] = true })
	if err := f.validate(); err != nil {
		return err
	}
	f.cfg = f.cfg.WithDefaults()
	f.cfg.Flags = f.effective(fs)
	exe, err := os.Executable() // the vat (unless --server) and the echo helper
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	f.cfg.Exe = exe
	return loadgen.Run(ctx, f.cfg, env.Stdout, env.Stderr)
}

// validate checks the flags given: a flag that does not apply to the
// mode, or an absurd value, is a usage error.
func (f *benchFlags) validate() error {
	if _, ok := benchApplies[f.cfg.Mode]; !ok {
		return usagef("bad --mode %q (want %s)", f.cfg.Mode, benchModes)
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
	ok := append(slices.Clone(benchCommon), benchApplies[f.cfg.Mode]...)
	var bad []string
	for name := range f.set {
		if !slices.Contains(ok, name) {
			bad = append(bad, "--"+name)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return usagef("%s: not used by --mode %s", strings.Join(bad, ", "), f.cfg.Mode)
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
		{"clients", int64(f.cfg.Clients), 1, 20000, false},
		{"ops", int64(f.cfg.Ops), 1, 100000, false},
		{"body", int64(f.cfg.Body), 2, 16 << 20, false},
		{"inflight", int64(f.cfg.Inflight), 1, 1024, false},
		{"count", int64(f.cfg.Count), 1, 1e9, false},
		{"rate", int64(f.cfg.Rate), 1, 1e6, false},
		{"subscribers", int64(f.cfg.Subscribers), 1, 10000, false},
		{"conns", int64(f.cfg.Conns), 1, 200000, false},
		{"duration", int64(f.cfg.Duration), ms, day, true},
		{"ceiling-duration", int64(f.cfg.CeilingDuration), ms, day, true},
		{"sample", int64(f.cfg.Sample), 10 * ms, 3600 * s, true},
		{"soak-duration", int64(f.cfg.SoakDuration), s, day, true},
		{"retain-ops", int64(f.cfg.RetainOps), 1, 1e12, false},
		{"retain-for", int64(f.cfg.RetainFor), s, 365 * day, true},
		{"timeout", int64(f.cfg.Timeout), s, 2 * day, true},
	}
}

func (f *benchFlags) checkRanges() error {
	for _, r := range f.ranges() {
		if f.set[r.name] && (r.v < r.lo || r.v > r.hi) {
			return usagef("--%s %s is out of range (want %s to %s)", r.name, r.show(r.v), r.show(r.lo), r.show(r.hi))
		}
	}
	if f.cfg.Shares != "one" && f.cfg.Shares != "each" {
		return usagef("bad --shares %q (want one or each)", f.cfg.Shares)
	}
	if n := f.cfg.BatchBytes(); n > loadgen.MaxBatchBytes {
		return usagef("--ops × --body makes %d-byte batches; one batch can carry at most %d bytes", n, loadgen.MaxBatchBytes)
	}
	return nil
}

// checkTarget checks --server and --token-file.
func (f *benchFlags) checkTarget() error {
	if f.cfg.Server == "" {
		if f.cfg.TokenFile != "" {
			return usagef("--token-file goes with --server (the bench's own vat needs none)")
		}
		return nil
	}
	if f.cfg.TokenFile == "" {
		return usagef("--server needs --token-file with the server's admin token")
	}
	if err := loadgen.CheckServer(f.cfg.Server); err != nil {
		return usagef("--server: %v", err)
	}
	return nil
}

// effective returns every flag's value as used (mode defaults filled in).
func (f *benchFlags) effective(fs *pflag.FlagSet) map[string]string {
	out := map[string]string{}
	fs.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "help" {
			out[fl.Name] = fl.Value.String()
		}
	})
	for _, r := range f.ranges() {
		out[r.name] = r.show(r.v)
	}
	if !f.set["count"] {
		out["count"] = "0"
	}
	return out
}
