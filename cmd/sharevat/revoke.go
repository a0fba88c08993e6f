package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"

	"github.com/spf13/pflag"
)

var revokeCommand = command{
	name:    "revoke",
	args:    "--grant ID | --all [--share ID]",
	summary: "revoke a grant and its subtree (--grant ID), or every token (--all)",
	long: `--grant revokes one grant and everything minted from it; it needs the admin
right, or the grant must be this token's own or below it. --all bumps the
share's epoch: every token of the share minted so far dies at once, the one
used here included, and a new owner token is printed (shown once: keep it
secret). Connected holders are refused on their next call either way.
With --share ID and the server's admin token (--token-file
<data>/admin.token), --all resets a share whose owner token was lost.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var id, share string
		var all bool
		cf.register(fs)
		fs.StringVar(&id, "grant", "", "revoke this grant (its id, as 'sharevat grants' shows it) and everything minted from it")
		fs.BoolVar(&all, "all", false, "revoke every token of the share, this one included, and print a new owner token")
		fs.StringVar(&share, "share", "", "with --all and the server's admin token: reset this share (when its owner token is lost)")
		return cf.run(func(ctx context.Context, env *Env) error {
			return revoke(ctx, env, &cf, sharevat.GrantID(id), all, sharevat.ShareID(share))
		})
	},
}

// revoke runs `revoke` once its command line is checked.
func revoke(ctx context.Context, env *Env, cf *clientFlags, id sharevat.GrantID, all bool, share sharevat.ShareID) error {
	if err := revokeInput(string(id), all); err != nil {
		return err
	}
	switch {
	case share != "" && !all:
		return usagef("--share goes with --all")
	case share != "":
		return resetOwner(ctx, env, cf, share)
	case all:
		return bumpEpoch(ctx, env, cf)
	}
	return revokeGrant(ctx, env, cf, id)
}

// revokeInput checks the command line of `revoke`. It never quotes the
// id: a token pasted by mistake must not end up on the screen.
func revokeInput(id string, all bool) error {
	switch {
	case (id != "") == all:
		return usagef("pass exactly one of --grant ID and --all")
	case all:
		return nil
	case strings.HasPrefix(id, sturdyref.Prefix):
		return usagef("--grant wants a grant id, not a token (see 'sharevat grants')")
	case !sturdyref.ValidID(id):
		return usagef("--grant wants a grant id: %d characters a-z and 2-7 (see 'sharevat grants')", sturdyref.IDLen)
	}
	return nil
}

func revokeGrant(ctx context.Context, env *Env, cf *clientFlags, id sharevat.GrantID) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	if err := sh.Revoke(ctx, id); err != nil {
		return err
	}
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{"grant_id": id, "revoked": true})
	}
	_, err = fmt.Fprintf(env.Stdout, "revoked %s and everything minted from it\n", id)
	return err
}

func bumpEpoch(ctx context.Context, env *Env, cf *clientFlags) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	m, epoch, err := sh.BumpEpoch(ctx)
	if err != nil {
		return err
	}
	return printBumped(env, cf, m, epoch)
}

// resetOwner bumps a share's epoch with the server admin token.
func resetOwner(ctx context.Context, env *Env, cf *clientFlags, share sharevat.ShareID) error {
	tok, err := cf.theToken()
	if err != nil {
		return err
	}
	conn, err := cf.dial(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	admin, err := conn.RedeemAdmin(ctx, tok)
	if err != nil {
		return denied(err)
	}
	defer admin.Release()
	m, epoch, err := admin.ResetOwner(ctx, share)
	if err != nil {
		return err
	}
	return printBumped(env, cf, m, epoch)
}

// printBumped reports a new epoch and prints its owner token.
func printBumped(env *Env, cf *clientFlags, m sharevat.Minted, epoch sharevat.Epoch) error {
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{"token": m.Token, "grant_id": m.GrantID, "epoch": epoch})
	}
	fmt.Fprintf(env.Stderr, "epoch is now %d; every earlier token of this share is dead; the new owner token is printed on stdout, once: keep it secret\n", epoch)
	_, err := fmt.Fprintln(env.Stdout, m.Token)
	return err
}
