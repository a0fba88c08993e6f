package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"

	"github.com/spf13/pflag"
)

// grantRequest is what `grant` asks the server for.
type grantRequest struct {
	scope sharevat.Scope
	ttl   time.Duration
	label string
	link  bool // print a share page link (link.go)
}

var grantCommand = command{
	name:    "grant",
	args:    "--scope read|append|read,append|…[,delegate] [--ttl 24h] [--label L] [--link]",
	summary: "mint a token for a narrower right and print it",
	long: `Mints a token for a narrower right than this token's and prints it (shown
once: pass it on, keep it secret). The scope must be a subset of this
token's own, which needs the delegate right; the new token expires no later
than this one. Add delegate to let its holder mint narrower tokens in turn.

With --link (and --scope read) it prints a link to the read-only share
page instead, <base>/s/#<token>: anyone who opens it sees the session live
in a browser until the grant is revoked or expires. The base is the vat's
serve --public-url, or the address --server reaches it at.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var scope, label string
		var ttl time.Duration
		var link bool
		cf.register(fs)
		fs.StringVar(&scope, "scope", "", "rights of the new token, comma-separated: read, append, delegate, admin (required)")
		dayDurationVar(fs, &ttl, "ttl", 0, "lifetime of the new token, e.g. 24h, 7d or 2w (0: the same expiry as this token)")
		fs.StringVar(&label, "label", "", "who or what the token is for; shown by 'sharevat grants'")
		fs.BoolVar(&link, "link", false, "print a link to the read-only share page (<base>/s/#TOKEN) instead of the token; needs --scope read, since whoever has the link holds the token")
		return cf.run(func(ctx context.Context, env *Env) error {
			req, err := grantInput(scope, ttl, label, link)
			if err != nil {
				return err
			}
			return grant(ctx, env, &cf, req)
		})
	},
}

// grantInput checks the command line of `grant`.
func grantInput(scope string, ttl time.Duration, label string, link bool) (grantRequest, error) {
	if scope == "" {
		return grantRequest{}, usagef("--scope is required (e.g. --scope read)")
	}
	sc, err := sharevat.ParseScope(scope)
	if err != nil {
		return grantRequest{}, usagef("--scope: %s", sharevat.ErrorMessage(err))
	}
	if ttl < 0 {
		return grantRequest{}, usagef("--ttl must not be negative (0 keeps this token's expiry)")
	}
	if link {
		if err := checkLinkScope(sc); err != nil {
			return grantRequest{}, err
		}
	}
	return grantRequest{scope: sc, ttl: ttl, label: label, link: link}, nil
}

func grant(ctx context.Context, env *Env, cf *clientFlags, req grantRequest) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	m, err := sh.Grant(ctx, req.scope, req.ttl, req.label)
	if err != nil {
		return err
	}
	if req.link {
		return printLink(ctx, env, cf, m)
	}
	if cf.json {
		return writeJSON(env.Stdout, map[string]any{
			"token": m.Token, "grant_id": m.GrantID, "scope": m.Scope.String(), "expires_at": jsonTime(m.ExpiresAt),
		})
	}
	fmt.Fprintf(env.Stderr, "granted %s (scope %s, expires %s); its token is printed on stdout, once: keep it secret\n",
		m.GrantID, m.Scope, stamp(m.ExpiresAt, "never"))
	_, err = fmt.Fprintln(env.Stdout, m.Token)
	return err
}
