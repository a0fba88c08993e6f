package loadgen

import (
	"context"
	"fmt"
	"io"
	"time"
)

// allRuns are the runs of the mode all, one per target of the issue.
type allRuns struct {
	Append64x1   *appendReport  `json:"append_64_clients_1_op,omitempty"`
	Append64x100 *appendReport  `json:"append_64_clients_100_ops,omitempty"`
	Append1x1    *appendReport  `json:"append_1_client_1_op,omitempty"`
	Restore      *restoreReport `json:"restore,omitempty"`
	Conns        *connsReport   `json:"conns,omitempty"`
	Tail         *tailReport    `json:"tail,omitempty"`
	Soak         *soakReport    `json:"soak,omitempty"`
}

// The shapes of the targets.
const (
	allClients   = 64
	allBigBatch  = 100
	allBody      = 200
	allTailRate  = 1000
	allSoakConns = 16
	allSoakSlots = 4
)

// benchAllRun runs every target in turn, each on a vat of its own (when
// the bench starts its own), and fills rep.Runs and rep.Targets.
func benchAllRun(ctx context.Context, stderr io.Writer, cfg *Config, rep *benchReport) error {
	runs := &allRuns{}
	rep.Runs = runs
	steps := []struct {
		name string
		run  func() error
	}{
		{"64 clients, 1-op batches", func() (err error) {
			runs.Append64x1, err = benchAppendRun(ctx, stderr, cfg, allAppendShape(cfg, allClients, 1))
			return err
		}},
		{"64 clients, 100-op batches", func() (err error) {
			runs.Append64x100, err = benchAppendRun(ctx, stderr, cfg, allAppendShape(cfg, allClients, allBigBatch))
			return err
		}},
		{"1 client, 1-op batches", func() (err error) {
			runs.Append1x1, err = benchAppendRun(ctx, stderr, cfg, allAppendShape(cfg, 1, 1))
			return err
		}},
		{"restore", func() (err error) {
			runs.Restore, err = benchRestoreRun(ctx, stderr, allRestoreConfig(cfg))
			return err
		}},
		{"tail", func() (err error) { runs.Tail, err = benchTailRun(ctx, stderr, allTailConfig(cfg)); return err }},
		{"conns", func() (err error) { runs.Conns, err = benchConnsRun(ctx, stderr, cfg, cfg.Conns); return err }},
	}
	if cfg.Soak {
		steps = append(steps, struct {
			name string
			run  func() error
		}{"soak", func() (err error) { runs.Soak, err = benchSoakRun(ctx, stderr, cfg, allSoakShape(cfg)); return err }})
	}
	for i, s := range steps {
		progress(stderr, "[%d/%d] %s", i+1, len(steps), s.name)
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	rep.Targets = runs.targets()
	return nil
}

func allAppendShape(cfg *Config, clients, ops int) appendShape {
	return appendShape{Clients: clients, Shares: "each", Ops: ops, Body: allBody, Inflight: 1,
		Duration: cfg.Duration, CeilingDur: cfg.CeilingDuration}
}

func allRestoreConfig(cfg *Config) *Config {
	g := *cfg
	g.Clients, g.Inflight, g.Count = 1, 1, 0
	return &g
}

func allTailConfig(cfg *Config) *Config {
	g := *cfg
	g.Rate, g.Body = allTailRate, allBody
	return &g
}

func allSoakShape(cfg *Config) soakShape {
	return soakShape{Clients: allSoakConns, Shares: "each", Inflight: allSoakSlots, Body: allBody,
		Rate: cfg.Rate, Duration: cfg.SoakDuration, Sample: min(cfg.Sample, max(cfg.SoakDuration/10, time.Second))}
}

// targets are the targets the runs measured.
func (r *allRuns) targets() []targetRow {
	var rows []targetRow
	add := func(ok bool, row func() targetRow) {
		if ok {
			rows = append(rows, row())
		}
	}
	add(r.Append64x1 != nil, func() targetRow { return rowRPC(r.Append64x1) })
	add(r.Append64x100 != nil, func() targetRow { return rowStorage(r.Append64x100) })
	add(r.Append1x1 != nil, func() targetRow { return rowLatency(r.Append1x1) })
	for _, a := range []*appendReport{r.Append64x1, r.Append1x1} {
		if a != nil {
			rows = append(rows, transportRows(a)...)
		}
	}
	add(r.Restore != nil, func() targetRow { return rowRestore(r.Restore) })
	add(r.Conns != nil, func() targetRow { return rowConns(r.Conns) })
	add(r.Soak != nil, func() targetRow { return rowSoak(r.Soak) })
	add(r.Tail != nil, func() targetRow { return rowTail(r.Tail) })
	return rows
}
