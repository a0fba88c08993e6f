package main

import (
	"context"
	"fmt"
	"io"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/sturdyref"

	"github.com/spf13/pflag"
)

// Why a token is not valid, as `inspect` reports it. The server answers
// every failed redeem alike, so "not redeemable" is all it can say.
const (
	reasonMalformed = "malformed"
	reasonRefused   = "unknown, revoked, expired or fenced"
)

var inspectCommand = command{
	name:    "inspect",
	summary: "say what a token is and whether it is valid, without its secret",
	long: `Says what the token is — a share token (its share, title, grant id, scope,
epoch, expiry and the share's head) or the server's admin token — and
whether it is valid, by redeeming it. Never prints the token's secret.
Exits 3 when the token is malformed or not redeemable (unknown, revoked,
expired, or fenced by 'revoke --all'). A server that cannot check tokens
now (its store is down) is asked again until --timeout; then inspect
says it could not check, and exits 1.
--json prints {"kind","grant_id","share_id","title","scope","epoch",
"expires_at","head","valid","reason"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		cf.register(fs)
		return cf.run(func(ctx context.Context, env *Env) error { return inspect(ctx, env, &cf) })
	},
}

func inspect(ctx context.Context, env *Env, cf *clientFlags) error {
	tok, err := cf.theToken()
	if err != nil {
		return err
	}
	parsed, err := sturdyref.Parse(tok)
	if err != nil {
		return report(env, cf.json, &tokenReport{kind: "unknown", reason: reasonMalformed})
	}
	var conn *client.Conn
	var r *tokenReport
	err = cf.retryUnavailable(ctx, func() error {
		if conn, err = cf.dial(ctx); err != nil {
			return err
		}
		if r, err = redeemAny(ctx, conn, tok); err != nil {
			conn.Close()
		}
		return err
	})
	if isServerUnavailable(err) {
		return fmt.Errorf("could not check whether the token is valid: %w", err)
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	r.grantID = parsed.GrantID
	return report(env, cf.json, r)
}

// redeemAny redeems tok as a share token, else as the admin token.
func redeemAny(ctx context.Context, conn *client.Conn, tok string) (*tokenReport, error) {
	sh, err := conn.Redeem(ctx, tok)
	if err == nil {
		defer sh.Release()
		return &tokenReport{kind: "share", share: sh}, nil
	}
	if sharevat.ErrorCode(err) != sharevat.EUnauthorized {
		return nil, err
	}
	admin, err := conn.RedeemAdmin(ctx, tok)
	switch {
	case err == nil:
		admin.Release()
		return &tokenReport{kind: "admin"}, nil
	case sharevat.ErrorCode(err) == sharevat.EUnauthorized:
		return &tokenReport{kind: "unknown", reason: reasonRefused}, nil
	}
	return nil, err
}

// report prints r; a token that is not valid exits 3.
func report(env *Env, asJSON bool, r *tokenReport) error {
	var err error
	if asJSON {
		err = writeJSON(env.Stdout, r.json())
	} else {
		err = r.print(env.Stdout)
	}
	if err == nil && r.reason != "" {
		return errDeniedShown
	}
	return err
}

// tokenReport is what `inspect` found out. It never holds the secret.
type tokenReport struct {
	kind    string           // "share", "admin" or "unknown"
	grantID sharevat.GrantID // public; empty when the token is malformed
	share   *client.Share    // a share token's redeemed capability (its Access and Info)
	reason  string           // why the token is not valid; "" when it is
}

func (r *tokenReport) print(w io.Writer) error {
	kinds := map[string]string{"share": "share token", "admin": "admin token", "unknown": "unknown"}
	lines := [][2]string{{"kind", kinds[r.kind]}}
	if r.grantID != "" {
		lines = append(lines, [2]string{"grant", string(r.grantID)})
	}
	if sh := r.share; sh != nil {
		lines = append(lines, [][2]string{
			{"share", string(sh.Info.ID)}, {"title", orDash(printable(sh.Info.Meta.Title))},
			{"scope", sh.Access.Scope.String()}, {"epoch", fmt.Sprint(sh.Access.Epoch)},
			{"expires", stamp(sh.Access.ExpiresAt, "never")}, {"head", fmt.Sprint(sh.Info.Head)},
		}...)
	}
	lines = append(lines, [2]string{"valid", r.validText()})
	for _, l := range lines {
		if _, err := fmt.Fprintf(w, "%-8s %s\n", l[0]+":", l[1]); err != nil {
			return err
		}
	}
	return nil
}

func (r *tokenReport) validText() string {
	if r.reason != "" {
		return "false (" + r.reason + ")"
	}
	return "true"
}

// jsonInspect is `inspect --json`; fields that do not apply are null.
type jsonInspect struct {
	Kind      string            `json:"kind"`
	GrantID   *sharevat.GrantID `json:"grant_id"`
	ShareID   *sharevat.ShareID `json:"share_id"`
	Title     *string           `json:"title"`
	Scope     *string           `json:"scope"`
	Epoch     *sharevat.Epoch   `json:"epoch"`
	ExpiresAt *string           `json:"expires_at"`
	Head      *sharevat.Cursor  `json:"head"`
	Valid     bool              `json:"valid"`
	Reason    *string           `json:"reason"`
}

func (r *tokenReport) json() jsonInspect {
	j := jsonInspect{Kind: r.kind, Valid: r.reason == ""}
	if r.grantID != "" {
		j.GrantID = &r.grantID
	}
	if r.reason != "" {
		j.Reason = &r.reason
	}
	if sh := r.share; sh != nil {
		scope := sh.Access.Scope.String()
		j.ShareID, j.Title, j.Scope, j.Epoch = &sh.Info.ID, &sh.Info.Meta.Title, &scope, &sh.Access.Epoch
		j.ExpiresAt, j.Head = jsonTime(sh.Access.ExpiresAt), &sh.Info.Head
	}
	return j
}
