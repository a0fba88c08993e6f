package main

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"

	"github.com/spf13/pflag"
)

var createCommand = command{
	name:    "create",
	args:    "[--title T] --token-file <data>/admin.token",
	summary: "create a share (token: admin) and print its owner token",
	long: `Creates a share and prints its owner token (shown once: keep it). Needs
the server's admin token (<data>/admin.token on the server), or none with
a vat started with --open.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var title, project, dir, version string
		cf.register(fs)
		fs.StringVar(&title, "title", "", "session title")
		fs.StringVar(&project, "project", "", "project id")
		fs.StringVar(&dir, "directory", "", "working directory of the session")
		fs.StringVar(&version, "version", "", "version of the tool that owns the session")
		return cf.run(func(ctx context.Context, env *Env) error {
			patch := sharevat.MetaPatch{Title: &title, ProjectID: &project, Directory: &dir, Version: &version}
			return create(ctx, env, &cf, patch)
		})
	},
}

func create(ctx context.Context, env *Env, cf *clientFlags, patch sharevat.MetaPatch) error {
	conn, admin, refused, err := dialAdmin(ctx, cf)
	switch {
	case err != nil:
		return err
	case refused != nil:
		return createDenied(refused)
	}
	defer conn.Close()
	defer admin.Release()
	sh, m, err := admin.CreateShare(ctx, patch)
	if err != nil {
		return err
	}
	defer sh.Release()
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{
			"share_id": sh.Info.ID, "grant_id": m.GrantID, "scope": m.Scope.String(), "token": m.Token,
		})
	}
	fmt.Fprintf(env.Stderr, "created share %s; its owner token is printed on stdout, once: keep it secret\n", sh.Info.ID)
	_, err = fmt.Fprintln(env.Stdout, m.Token)
	return err
}

// createDenied makes an unauthorized `create` say which token it needs.
// The hint is the same whatever the token was (a share token, a wrong or
// stale admin token): the vat answers every failed redeem alike, and
// `create` does not redeem the token a second time to find out more.
// `sharevat inspect` tells a share token from the admin token.
func createDenied(err error) error {
	if sharevat.ErrorCode(err) != sharevat.EUnauthorized {
		return err
	}
	return fmt.Errorf("%w (create needs the server's admin token, not a share token: "+
		"it is <data>/admin.token on the server; pass it with --token-file; "+
		"'sharevat inspect' tells which kind a token is)", err)
}

// adminFor redeems the admin token, or asks an --open server when no
// token is given.
// dialAdmin dials the vat and redeems the admin token (adminFor); the
// caller closes the connection and releases the Admin. An error from the
// redeem comes back as refused, for the caller to explain; a dial error
// as err.
func dialAdmin(ctx context.Context, cf *clientFlags) (conn *client.Conn, admin *client.Admin, refused, err error) {
	if conn, err = cf.dial(ctx); err != nil {
		return nil, nil, nil, err
	}
	if admin, refused = adminFor(ctx, conn, cf); refused != nil {
		conn.Close()
		return nil, nil, refused, nil
	}
	return conn, admin, nil, nil
}

func adminFor(ctx context.Context, conn *client.Conn, cf *clientFlags) (*client.Admin, error) {
	tok, err := cf.theToken()
	if err != nil {
		a, openErr := conn.OpenAdmin(ctx)
		if openErr != nil {
			return nil, usagef("no token: create needs the server's admin token, the file admin.token in serve's --data directory " +
				"(./sharevat-data/admin.token by default): pass --token-file sharevat-data/admin.token, or set SHAREVAT_TOKEN_FILE")
		}
		return a, nil
	}
	return conn.RedeemAdmin(ctx, tok)
}
