package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"

	"github.com/spf13/pflag"
)

var retentionCommand = command{
	name:    "retention",
	args:    "[--keep-ops N] [--keep-for D] | [--off]",
	summary: "show or set how much of the log the server keeps",
	long: `Shows this share's retention, or sets it. With --keep-ops N the server
keeps at least the last N ops readable; with --keep-for D (e.g. 720h) at
least the ops of the last D; with both, an op goes once both allow it.
Older ops are compacted in the background, as 'sharevat compact' would:
the snapshot stays exact and every op id stays known, so retries are
still answered duplicate. --off keeps everything (the default). Setting
needs the admin right; showing needs read. --json prints {"share_id",
"keep_ops","keep_for_seconds"} (0: no limit).`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var keepOps uint64
		var keepFor time.Duration
		var off bool
		cf.register(fs)
		fs.Uint64Var(&keepOps, "keep-ops", 0, "keep at least the last N ops readable")
		dayDurationVar(fs, &keepFor, "keep-for", 0, "keep at least the ops of the last D, e.g. 720h or 30d")
		fs.BoolVar(&off, "off", false, "keep every op (no retention)")
		return cf.run(func(ctx context.Context, env *Env) error {
			change, err := retentionInput(fs, keepOps, keepFor, off)
			if err != nil {
				return err
			}
			set, id, err := settings(ctx, &cf, change)
			if err != nil {
				return err
			}
			return printRetention(env, &cf, id, set)
		})
	},
}

// retentionInput checks the command line of `retention` and returns the
// change it asks for (nil: only show).
func retentionInput(fs *pflag.FlagSet, keepOps uint64, keepFor time.Duration, off bool) (func(*sharevat.Settings), error) {
	ops, age := fs.Changed("keep-ops"), fs.Changed("keep-for")
	switch {
	case off && (ops || age):
		return nil, usagef("--off goes alone: it turns off --keep-ops and --keep-for")
	case ops && keepOps == 0:
		return nil, usagef("--keep-ops must be at least 1 (--off keeps everything)")
	case age && keepFor <= 0:
		return nil, usagef("--keep-for must be positive, e.g. 720h (--off keeps everything)")
	case off:
		return func(s *sharevat.Settings) { s.RetainOps, s.RetainFor = 0, 0 }, nil
	case ops || age:
		return func(s *sharevat.Settings) {
			s.RetainOps, s.RetainFor = 0, 0
			if ops {
				s.RetainOps = keepOps
			}
			if age {
				s.RetainFor = keepFor
			}
		}, nil
	}
	return nil, nil
}

// settings reads the token's share's settings and, when change is not
// nil, stores them changed (Share.Configure replaces every setting, so
// the others are kept as read). It returns them as stored.
func settings(ctx context.Context, cf *clientFlags, change func(*sharevat.Settings)) (sharevat.Settings, sharevat.ShareID, error) {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return sharevat.Settings{}, "", denied(err)
	}
	defer conn.Close()
	set, err := sh.Settings(ctx)
	if err != nil || change == nil {
		return set, sh.Info.ID, err
	}
	change(&set)
	set, err = sh.Configure(ctx, set)
	return set, sh.Info.ID, err
}

func printRetention(env *Env, cf *clientFlags, id sharevat.ShareID, set sharevat.Settings) error {
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{
			"share_id": id, "keep_ops": set.RetainOps, "keep_for_seconds": int64(set.RetainFor / time.Second),
		})
	}
	_, err := fmt.Fprintf(env.Stdout, "retention of share %s: %s\n", id, describeRetention(set))
	return err
}

// describeRetention says in words what the server keeps.
func describeRetention(s sharevat.Settings) string {
	switch {
	case s.RetainOps > 0 && s.RetainFor > 0:
		return fmt.Sprintf("keep the last %d ops and the ops of the last %s", s.RetainOps, s.RetainFor)
	case s.RetainOps > 0:
		return fmt.Sprintf("keep the last %d ops", s.RetainOps)
	case s.RetainFor > 0:
		return fmt.Sprintf("keep the ops of the last %s", s.RetainFor)
	}
	return "off (every op is kept)"
}
