package main

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"

	"github.com/spf13/pflag"
)

var readCommand = command{
	name:    "read",
	args:    "[--from N] [--limit K]",
	summary: "print a share's log as JSON Lines",
	long:    `Prints ops as JSON Lines: {"cursor","op_id","batch_id","kind","key","body","delete","at"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var from uint64
		var limit int
		cf.register(fs)
		fs.Uint64Var(&from, "from", 0, "print ops after this cursor")
		fs.IntVar(&limit, "limit", 0, "print at most this many ops (0: all up to the head)")
		return cf.runWatched(fs, func(ctx context.Context, env *Env, w *watchdog) error {
			if limit < 0 {
				return usagef("--limit must not be negative")
			}
			return readLog(ctx, env, &cf, w, sharevat.Cursor(from), limit)
		})
	},
}

// readLog prints the ops after from, page by page; each page received
// is progress for w.
func readLog(ctx context.Context, env *Env, cf *clientFlags, w *watchdog, from sharevat.Cursor, limit int) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	rd, err := sh.Reader(ctx)
	if err != nil {
		return err
	}
	printed := 0
	_, err = rd.ReadAll(ctx, from, func(entries []sharevat.Entry) error {
		w.progress()
		for i := range entries {
			if limit > 0 && printed == limit {
				return errDone
			}
			if err := writeJSON(env.Stdout, toJSONEntry(&entries[i])); err != nil {
				return err
			}
			printed++
		}
		return nil
	})
	if err == errDone {
		return nil
	}
	return err
}

// errDone stops a paging loop early without an error.
var errDone = fmt.Errorf("done")
