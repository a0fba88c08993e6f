package main

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"

	"github.com/spf13/pflag"
)

var forkCommand = command{
	name:    "fork",
	args:    "--at N [--title T]",
	summary: "fork the share at a cursor into a new share and print its owner token",
	long: `Creates a new share whose log is this share's ops 1..N — same op ids,
kinds, keys, bodies and order — so its snapshot is this share's state at
cursor N, and prints the new share's owner token on stdout (shown once:
keep it secret) and a note on stderr. The fork records this share as its
parent ('sharevat children' lists it); later appends to either share do
not reach the other. It keeps this share's title, project, directory and
version unless --title, --project or --directory give others. Needs the
read and append rights (a fork is new data the server stores), and stays
within the server's fork quotas; a fork made with a delegated token dies
when that token is revoked. --at 0 forks an empty log; --at past the head is refused, and
so is a cursor a compaction dropped. --json prints {"share_id",
"parent_id","fork_cursor","head","grant_id","scope","token"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var at uint64
		var title, project, dir string
		cf.register(fs)
		fs.Uint64Var(&at, "at", 0, "fork at this cursor: the new share holds ops 1..N (required; 0 forks an empty log)")
		fs.StringVar(&title, "title", "", "title of the new share (default: this share's)")
		fs.StringVar(&project, "project", "", "project id of the new share (default: this share's)")
		fs.StringVar(&dir, "directory", "", "working directory of the new share (default: this share's)")
		return cf.run(func(ctx context.Context, env *Env) error {
			if !fs.Changed("at") {
				return usagef("--at N is required: the cursor to fork at (see 'sharevat read'; 0 forks an empty log)")
			}
			var patch sharevat.MetaPatch
			for _, f := range []struct {
				name string
				val  *string
				dst  **string
			}{{"title", &title, &patch.Title}, {"project", &project, &patch.ProjectID}, {"directory", &dir, &patch.Directory}} {
				if fs.Changed(f.name) {
					*f.dst = f.val
				}
			}
			return fork(ctx, env, &cf, sharevat.Cursor(at), patch)
		})
	},
}

// fork forks the token's share and prints the fork's owner token.
func fork(ctx context.Context, env *Env, cf *clientFlags, at sharevat.Cursor, patch sharevat.MetaPatch) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	child, m, err := sh.Fork(ctx, at, patch)
	if err != nil {
		return err
	}
	defer child.Release()
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{
			"share_id": child.Info.ID, "parent_id": sh.Info.ID, "fork_cursor": at, "head": child.Info.Head,
			"grant_id": m.GrantID, "scope": m.Scope.String(), "token": m.Token,
		})
	}
	fmt.Fprintf(env.Stderr, "forked share %s from %s at cursor %d; its owner token is printed on stdout, once: keep it secret\n",
		child.Info.ID, sh.Info.ID, at)
	_, err = fmt.Fprintln(env.Stdout, m.Token)
	return err
}
