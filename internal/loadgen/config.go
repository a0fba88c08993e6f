package loadgen

import (
	"cmp"
	"errors"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
)

// Config is one run of the load generator: what `sharevat bench`'s flags
// set. A zero field takes its default (DefaultConfig, then the mode's
// defaults: see WithDefaults). Run uses the values as given; it is the
// caller's job to refuse absurd ones.
type Config struct {
	Mode string // append, restore, tail, conns, soak or all

	// The vat to drive: by default the bench's own, Exe's `serve` as a
	// child process on a free loopback port with a fresh data directory
	// in a temporary directory under CeilingDir. With Server (a loopback
	// ws:// or wss:// URL, see CheckServer) a running vat instead, with
	// the admin token in TokenFile.
	Exe       string // the sharevat binary
	Server    string
	TokenFile string
	// CeilingDir is where the child's directory and the storage
	// ceiling's file go, so on that disk (default: the system temp dir).
	CeilingDir string

	// The load; which fields a mode reads is listed in the package
	// comment.
	Clients         int           // connections (64; 1 for restore; 16 for soak)
	Shares          string        // "each" (one share per client) or "one" (one for all)
	Ops             int           // ops per append batch (1)
	Body            int           // bytes per op body, a JSON object padded to this size (200)
	Inflight        int           // calls in flight per connection (1; 4 for soak)
	Duration        time.Duration // each measured phase (10s; 10m for soak)
	Count           int           // calls per client instead of Duration (append, restore)
	CeilingDuration time.Duration // each ceiling (Duration)
	Rate            int           // ops/s of the tail writer (1000), calls/s of the soak (5000)
	Subscribers     int           // tail: subscribers, each on its own connection (8)
	Conns           int           // conns: idle connections, each with a live Reader (10,000)
	Sample          time.Duration // soak: time between server samples (10s)
	Soak            bool          // all: include the soak
	SoakDuration    time.Duration // all: how long the soak runs (10m)
	// soak: the retention set on each share before the run
	// (Share.Configure); 0: none, every op kept.
	RetainOps uint64        // keep at least the last N ops of each share
	RetainFor time.Duration // keep at least the ops of the last D

	Timeout    time.Duration // give up after this long (20 × the longest phase + 5m)
	CPUProfile string        // write this process's CPU profile to this file
	JSON       bool          // print one JSON object instead of the table
	// Flags are the command line's flags as used, copied into the report.
	Flags map[string]string

	serveArgs []string // more flags for the child vat (walcompare.go)
}

// MaxBatchBytes is the most one append batch may carry (BatchBytes).
const MaxBatchBytes = sharevat.HardMaxBatchBytes

// DefaultConfig is the configuration with no flags: the append mode and
// the defaults that do not depend on the mode.
func DefaultConfig() Config {
	return Config{Mode: "append", Shares: "each", Ops: 1, Body: 200, Subscribers: 8, Conns: 10000,
		Sample: 10 * time.Second, SoakDuration: 10 * time.Minute}
}

// BatchBytes is about how many bytes one append batch of c carries.
func (c Config) BatchBytes() int64 { return int64(c.Ops) * int64(c.Body+opOverhead) }

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

// WithDefaults returns c with every zero field set to its default.
func (c Config) WithDefaults() Config {
	s := DefaultConfig()
	c.Mode, c.Shares = cmp.Or(c.Mode, s.Mode), cmp.Or(c.Shares, s.Shares)
	c.Ops, c.Body = cmp.Or(c.Ops, s.Ops), cmp.Or(c.Body, s.Body)
	c.Subscribers, c.Conns = cmp.Or(c.Subscribers, s.Subscribers), cmp.Or(c.Conns, s.Conns)
	c.Sample, c.SoakDuration = cmp.Or(c.Sample, s.Sample), cmp.Or(c.SoakDuration, s.SoakDuration)
	d := defaultsFor(c.Mode)
	c.Clients = cmp.Or(c.Clients, d.clients)
	c.Inflight = cmp.Or(c.Inflight, d.inflight)
	c.Rate = cmp.Or(c.Rate, d.rate)
	c.Duration = cmp.Or(c.Duration, d.duration)
	c.CeilingDuration = cmp.Or(c.CeilingDuration, c.Duration)
	if c.Timeout == 0 {
		longest := max(c.Duration, c.CeilingDuration)
		if c.Mode == "all" && c.Soak {
			longest = max(longest, c.SoakDuration)
		}
		c.Timeout = 20*longest + 5*time.Minute
	}
	return c
}

// check refuses a Config Run cannot run at all.
func (c *Config) check() error {
	switch c.Mode {
	case "append", "restore", "tail", "conns", "soak", "all":
	default:
		return fmt.Errorf("bench: unknown mode %q", c.Mode)
	}
	if c.Server != "" {
		return CheckServer(c.Server)
	}
	if c.Exe == "" {
		return errors.New("bench: no sharevat binary to start the vat with (Config.Exe)")
	}
	return nil
}
