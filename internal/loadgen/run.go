package loadgen

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"time"
)

// Run measures what cfg asks for and prints the report on stdout: the
// figures and the targets table, or one JSON object with cfg.JSON. It
// tells on stderr what it is measuring as it goes. A failed run returns
// the error and prints no report.
func Run(ctx context.Context, cfg Config, stdout, stderr io.Writer) error {
	cfg = cfg.WithDefaults()
	if err := cfg.check(); err != nil {
		return err
	}
	stop, err := startCPUProfile(cfg.CPUProfile)
	if err != nil {
		return err
	}
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	rep, err := measure(ctx, &cfg, stderr)
	if err != nil {
		return err
	}
	return writeReport(stdout, &cfg, rep)
}

// measure runs the chosen mode and returns its report.
func measure(ctx context.Context, cfg *Config, stderr io.Writer) (*benchReport, error) {
	rep := &benchReport{Mode: cfg.Mode, Machine: machine(), Started: time.Now().UTC().Format(time.RFC3339), Flags: cfg.Flags}
	var err error
	switch cfg.Mode {
	case "append":
		rep.Append, err = benchAppendRun(ctx, stderr, cfg, cfg.appendShape())
	case "restore":
		rep.Restore, err = benchRestoreRun(ctx, stderr, cfg)
	case "tail":
		rep.Tail, err = benchTailRun(ctx, stderr, cfg)
	case "conns":
		rep.Conns, err = benchConnsRun(ctx, stderr, cfg, cfg.Conns)
	case "soak":
		rep.Soak, err = benchSoakRun(ctx, stderr, cfg, cfg.soakShape(cfg.Duration))
	case "all":
		err = benchAllRun(ctx, stderr, cfg, rep)
	}
	if err != nil {
		return nil, err
	}
	if cfg.Mode != "all" {
		rep.Targets = rep.targets()
	}
	return rep, nil
}

// startCPUProfile starts this process's CPU profile, if asked.
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
