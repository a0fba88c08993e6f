package main

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"

	"github.com/spf13/pflag"
)

var compactCommand = command{
	name:    "compact",
	args:    "--before N",
	summary: "drop the ops before a cursor, keeping the state and the op ids",
	long: `Drops this share's ops before cursor N — their bodies and log entries —
so their space can be reused, and prints the earliest cursor still
readable. The snapshot stays exact, and every op id stays known: a late
retry of a dropped op is still answered duplicate at its original cursor.
Reading or tailing from before the earliest cursor then fails with
"compacted: …", naming it: take the snapshot and follow from there.
--before at or below the earliest cursor changes nothing; --before
head+1 drops every op. 'sharevat retention' makes the server do this in
the background. Needs the admin right. --json prints {"share_id",
"earliest"}.

The ops are dropped in steps of 4096, each its own transaction, each
complete: the share is consistent after every step, and readable from
the earliest cursor that step left. --timeout bounds the time without a
step done, not the whole run; a compaction stopped part way (a timeout,
the command killed, the server gone) says how far it got, and the same
command run again finishes it. A progress bar shows on a terminal
(--quiet: none; --progress: always).`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var pf progressFlags
		var before uint64
		cf.register(fs)
		pf.register(fs)
		fs.Uint64Var(&before, "before", 0, "drop the ops before this cursor (required)")
		return cf.runWatched(fs, func(ctx context.Context, env *Env, w *watchdog) error {
			if !fs.Changed("before") {
				return usagef("--before N is required: the ops before cursor N are dropped")
			}
			return compact(ctx, env, &cf, &pf, w, sharevat.Cursor(before))
		})
	},
}

// compactStep is how many ops one Compact call of the CLI drops: the
// vat's own step (vat/compact.go), so that each call is one store
// transaction, done whole or not at all.
const compactStep = 4096

func compact(ctx context.Context, env *Env, cf *clientFlags, pf *progressFlags, w *watchdog, before sharevat.Cursor) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	info, _, err := sh.Fetch(ctx)
	if err != nil {
		return err
	}
	earliest := max(info.Earliest, 1)
	if before > info.Head+1 || before <= earliest { // the vat's answer, in one call
		earliest, err = sh.Compact(ctx, before)
	} else {
		earliest, err = compactSteps(ctx, env, pf, w, sh, earliest, before)
	}
	if err != nil {
		return err
	}
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{"share_id": sh.Info.ID, "earliest": earliest})
	}
	_, err = fmt.Fprintf(env.Stdout, "compacted share %s; the earliest readable cursor is %d\n", sh.Info.ID, earliest)
	return err
}

// compactSteps compacts sh from earliest to before, one step a call,
// each progress for w and the bar. Stopped part way, it says how far it
// got and that running it again finishes it.
func compactSteps(ctx context.Context, env *Env, pf *progressFlags, w *watchdog, sh *client.Share, earliest, before sharevat.Cursor) (sharevat.Cursor, error) {
	bar := newCounter(env, pf, int(before-earliest), "compacted")
	defer bar.finish()
	for earliest < before {
		next, err := sh.Compact(ctx, min(before, earliest+compactStep))
		if err != nil {
			return earliest, &compactStopped{earliest: earliest, before: before, cause: stalled(ctx, err)}
		}
		if next <= earliest { // nothing moved: never spin
			break
		}
		w.progress()
		bar.ackedOps(int(next - earliest))
		earliest = next
	}
	return earliest, nil
}

// compactStopped says a compaction stopped part way: the share is
// consistent, readable from earliest, and the same command finishes it.
type compactStopped struct {
	earliest, before sharevat.Cursor
	cause            error
}

func (e *compactStopped) Error() string {
	return fmt.Sprintf("%v; the compaction stopped part way: the share is consistent and readable from cursor %d; run the same command again to drop the ops up to cursor %d",
		e.cause, e.earliest, e.before)
}

func (e *compactStopped) Unwrap() error { return e.cause }
