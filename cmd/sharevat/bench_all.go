package main

import (
	"context"
	"fmt"
	"time"
)

// allRuns are the runs of --mode all, one per target of the issue.
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
func benchAllRun(ctx context.Context, env *Env, f *benchFlags, rep *benchReport) error {
	runs := &allRuns{}
	rep.Runs = runs
	steps := []struct {
		name string
		run  func() error
	}{
		{"64 clients, 1-op batches", func() (err error) {
			runs.Append64x1, err = benchAppendRun(ctx, env, f, allAppendShape(f, allClients, 1))
			return err
		}},
		{"64 clients, 100-op batches", func() (err error) {
			runs.Append64x100, err = benchAppendRun(ctx, env, f, allAppendShape(f, allClients, allBigBatch))
			return err
		}},
		{"1 client, 1-op batches", func() (err error) {
			runs.Append1x1, err = benchAppendRun(ctx, env, f, allAppendShape(f, 1, 1))
			return err
		}},
		{"restore", func() (err error) { runs.Restore, err = benchRestoreRun(ctx, env, allRestoreFlags(f)); return err }},
		{"tail", func() (err error) { runs.Tail, err = benchTailRun(ctx, env, allTailFlags(f)); return err }},
		{"conns", func() (err error) { runs.Conns, err = benchConnsRun(ctx, env, f, f.conns); return err }},
	}
	if f.soak {
		steps = append(steps, struct {
			name string
			run  func() error
		}{"soak", func() (err error) { runs.Soak, err = benchSoakRun(ctx, env, f, allSoakShape(f)); return err }})
	}
	for i, s := range steps {
		progress(env, "[%d/%d] %s", i+1, len(steps), s.name)
		if err := s.run(); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	rep.Targets = runs.targets()
	return nil
}

func allAppendShape(f *benchFlags, clients, ops int) appendShape {
	return appendShape{Clients: clients, Shares: "each", Ops: ops, Body: allBody, Inflight: 1,
		Duration: f.duration, CeilingDur: f.ceilingDur}
}

func allRestoreFlags(f *benchFlags) *benchFlags {
	g := *f
	g.clients, g.inflight, g.count = 1, 1, 0
	return &g
}

func allTailFlags(f *benchFlags) *benchFlags {
	g := *f
	g.rate, g.body = allTailRate, allBody
	return &g
}

func allSoakShape(f *benchFlags) soakShape {
	return soakShape{Clients: allSoakConns, Shares: "each", Inflight: allSoakSlots, Body: allBody,
		Rate: f.rate, Duration: f.soakDur, Sample: min(f.sample, max(f.soakDur/10, time.Second))}
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
	add(r.Restore != nil, func() targetRow { return rowRestore(r.Restore) })
	add(r.Conns != nil, func() targetRow { return rowConns(r.Conns) })
	add(r.Soak != nil, func() targetRow { return rowSoak(r.Soak) })
	add(r.Tail != nil, func() targetRow { return rowTail(r.Tail) })
	return rows
}
