package main

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"

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
"earliest"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var before uint64
		cf.register(fs)
		fs.Uint64Var(&before, "before", 0, "drop the ops before this cursor (required)")
		return cf.run(func(ctx context.Context, env *Env) error {
			if !fs.Changed("before") {
				return usagef("--before N is required: the ops before cursor N are dropped")
			}
			return compact(ctx, env, &cf, sharevat.Cursor(before))
		})
	},
}

func compact(ctx context.Context, env *Env, cf *clientFlags, before sharevat.Cursor) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	earliest, err := sh.Compact(ctx, before)
	if err != nil {
		return err
	}
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{"share_id": sh.Info.ID, "earliest": earliest})
	}
	_, err = fmt.Fprintf(env.Stdout, "compacted share %s; the earliest readable cursor is %d\n", sh.Info.ID, earliest)
	return err
}
