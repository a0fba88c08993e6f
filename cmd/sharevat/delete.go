package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"
)

var deleteCommand = command{
	name:    "delete",
	args:    "[--yes]",
	summary: "delete the share: its log, its state and every token of it",
	long: `Deletes this token's share: every token of it dies at once (this one
too), connected holders are refused on their next call and live tails end
as revoked, and its log, state and op-id index are removed. The share id is
never reused and the server's audit log keeps its records; shares forked
from it live on. There is no undo: 'sharevat export' first if the log may
be needed again. Needs the admin right (an owner token). Asks for
confirmation on a terminal; without one, pass --yes. --json prints
{"share_id","deleted"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var yes bool
		cf.register(fs)
		fs.BoolVar(&yes, "yes", false, "do not ask for confirmation")
		return cf.run(func(ctx context.Context, env *Env) error { return deleteShare(ctx, env, &cf, yes) })
	},
}

// deleteShare deletes the token's share once confirmed.
func deleteShare(ctx context.Context, env *Env, cf *clientFlags, yes bool) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	title := ""
	if sh.Info.Meta.Title != "" {
		title = fmt.Sprintf(" (%q)", printable(sh.Info.Meta.Title))
	}
	if err := confirm(env, yes, fmt.Sprintf("delete share %s%s with its %d ops and every token of it?", sh.Info.ID, title, sh.Info.Head)); err != nil {
		return err
	}
	if err := sh.Delete(ctx); err != nil {
		return err
	}
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{"share_id": sh.Info.ID, "deleted": true})
	}
	_, err = fmt.Fprintf(env.Stdout, "deleted share %s; every token of it is dead\n", sh.Info.ID)
	return err
}
