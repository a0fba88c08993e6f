// Command hostilerss measures the resident memory of a `sharevat serve`
// process under each hostile vector alone. For each vector it
// starts a fresh serve (fresh temporary data directory), creates a share
// with the admin token, mints a read token, seeds the log as the vector
// needs, connects a healthy client, then runs the vector while sampling
// the process's VmRSS every 50 ms, and prints one line: peak and baseline
// RSS, whether serve died, how the hostile connection(s) ended, and what
// the healthy client managed meanwhile.
//
// Usage:
//
//	hostilerss -bin /path/to/sharevat [-vectors ping,bootstrap,...] [-cap 30s] [-- serve flags...]
//
// Everything after -- is passed to `sharevat serve`. Vectors run one at a
// time, each capped at -cap (plus up to hostile.DrainFor to see how a
// connection that never read was closed).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/sharevat/sharevat/internal/hostile"
)

// vector is one row of the table.
type vector struct {
	name      string
	seedOps   int // ops of seedBytes to append before the attack
	seedBytes int
	run       func(ctx context.Context, url string, fx hostile.Fixture, cap time.Duration) *hostile.Report
}

// opBytes is the body of one seeded op: close to the default 1 MiB body
// limit, so 8 make a Reader.read answer of ~8 MiB.
const opBytes = 1_040_000

var vectors = []vector{
	{name: "ping", run: func(ctx context.Context, url string, _ hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.PingFlood(ctx, url, 400_000, 512)
	}},
	{name: "bootstrap", run: func(ctx context.Context, url string, _ hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.BootstrapFlood(ctx, url, 1_500_000)
	}},
	{name: "captable", run: func(ctx context.Context, url string, _ hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.CapTableBomb(ctx, url, 580_000)
	}},
	{name: "fragments", run: func(ctx context.Context, url string, _ hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.FragmentHold(ctx, url, 100, 9<<20-64<<10, 256<<10, cap*2/3)
	}},
	{name: "reads", seedOps: 8, seedBytes: opBytes, run: func(ctx context.Context, url string, fx hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.ReadFlood(ctx, url, fx.Read, 100, 1000, cap/3)
	}},
	{name: "subscriptions", seedOps: 8, seedBytes: opBytes, run: func(ctx context.Context, url string, fx hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.SubscribeFlood(ctx, url, fx.Read, 1000, true, cap*2/3)
	}},
	// The crash vectors of §1, for completeness (not in the default set).
	{name: "race", run: func(ctx context.Context, url string, _ hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.RaceCrash(ctx, url, 2000)
	}},
	{name: "unknown-iface", run: func(ctx context.Context, url string, fx hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.UnknownInterfaceCrash(ctx, url, fx.Read)
	}},
	{name: "unknown-method", run: func(ctx context.Context, url string, fx hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.UnknownMethodCrash(ctx, url, fx.Read)
	}},
}

func main() {
	bin := flag.String("bin", "", "the sharevat binary to measure (required)")
	names := flag.String("vectors", "ping,bootstrap,captable,fragments,reads,subscriptions",
		"comma-separated vectors to run, in order (also: race, unknown-iface, unknown-method)")
	capFlag := flag.Duration("cap", 30*time.Second, "wall-time cap of each vector")
	verbose := flag.Bool("v", false, "print each vector's full report and serve's last log lines")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "hostilerss: -bin is required")
		flag.Usage()
		os.Exit(2)
	}
	serveArgs := flag.Args()
	fmt.Printf("# %s, serve flags %q, cap %s per vector\n", *bin, serveArgs, *capFlag)
	fmt.Printf("%-14s %9s %9s %-22s %7s  %-60s  %s\n", "vector", "peak", "baseline", "serve", "time", "hostile connections ended", "healthy client")
	failed := false
	for _, name := range strings.Split(*names, ",") {
		v, ok := find(name)
		if !ok {
			fmt.Fprintf(os.Stderr, "hostilerss: unknown vector %q\n", name)
			os.Exit(2)
		}
		if err := measure(*bin, v, *capFlag, serveArgs, *verbose); err != nil {
			fmt.Printf("%-14s error: %v\n", v.name, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func find(name string) (vector, bool) {
	for _, v := range vectors {
		if v.name == strings.TrimSpace(name) {
			return v, true
		}
	}
	return vector{}, false
}

// measure runs one vector against a fresh serve and prints its line.
func measure(bin string, v vector, cap time.Duration, serveArgs []string, verbose bool) error {
	dir, err := os.MkdirTemp("", "hostilerss-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	srv, err := hostile.StartServe(bin, dir, serveArgs...)
	if err != nil {
		return err
	}
	defer srv.Kill()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	fx, err := hostile.Setup(ctx, srv.URL, dir, v.seedOps, v.seedBytes)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	healthy, err := hostile.StartHealthy(ctx, srv.URL, fx.Owner)
	if err != nil {
		return fmt.Errorf("healthy client: %w", err)
	}
	baseline, err := hostile.ReadRSS(srv.Pid())
	if err != nil {
		return err
	}
	rss := hostile.SampleRSS(srv.Pid(), 50*time.Millisecond)
	vctx, vcancel := context.WithTimeout(context.Background(), cap)
	start := time.Now()
	rep := v.run(vctx, srv.URL, fx, cap)
	elapsed := time.Since(start)
	vcancel()
	// A crashed server may take a moment to exit after its sockets
	// closed: give it that, bounded.
	select {
	case <-srv.Done():
	case <-time.After(2 * time.Second):
	}
	hs := healthy.Stop()
	peak := rss.Stop()
	state := "alive"
	if exited, ps := srv.Exited(); exited {
		state = "DIED: " + ps.String()
	}
	fmt.Printf("%-14s %9s %9s %-22s %6.1fs  %-60s  %s\n", v.name, hostile.MiB(peak), hostile.MiB(baseline), state,
		elapsed.Seconds(), rep.EndSummary(), hs)
	if verbose || state != "alive" {
		fmt.Printf("    report: %s\n", rep)
	}
	if verbose {
		fmt.Printf("    serve log:\n%s\n", indent(srv.Log()))
	}
	return nil
}

func indent(s string) string {
	if s == "" {
		return "      (empty)"
	}
	return "      " + strings.ReplaceAll(s, "\n", "\n      ")
}
