package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"sharevat"

	"github.com/spf13/pflag"
)

var listCommand = command{
	name:    "list",
	args:    "--token-file <data>/admin.token",
	summary: "list the shares: id, title, status, head, updated (token: admin)",
	long: `Lists the vat's shares (Admin.list): id, title, status, head, updated.
Needs the server's admin token, like 'create'. Never prints a token.
--json prints an array of {"share_id","title","project_id","status",
"head","created_at","updated_at","deleted"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		cf.register(fs)
		return cf.run(func(ctx context.Context, env *Env) error { return list(ctx, env, &cf) })
	},
}

// list asks the vat for its shares with the admin token and prints them.
func list(ctx context.Context, env *Env, cf *clientFlags) error {
	conn, admin, refused, err := dialAdmin(ctx, cf)
	switch {
	case err != nil:
		return err
	case refused != nil:
		return listDenied(refused)
	}
	defer conn.Close()
	defer admin.Release()
	shares, err := admin.List(ctx)
	if err != nil {
		return err
	}
	if cf.json {
		return writeJSON(env.Stdout, sharesJSON(shares))
	}
	return printShares(env.Stdout, shares)
}

// listDenied makes an unauthorized `list` say which token it needs.
func listDenied(err error) error {
	if sharevat.ErrorCode(err) != sharevat.EUnauthorized {
		return err
	}
	return fmt.Errorf("%w (list needs the server's admin token, not a share token: "+
		"it is <data>/admin.token on the server; pass it with --token-file)", err)
}

// printShares writes the shares as a table, one share a line.
func printShares(w io.Writer, shares []sharevat.Share) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tSTATUS\tHEAD\tUPDATED")
	for _, sh := range shares {
		status := sh.Meta.Status.String()
		if sh.Deleted {
			status = "deleted"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", sh.ID, orDash(printable(sh.Meta.Title)),
			orDash(status), sh.Head, stamp(sh.Meta.UpdatedAt, "-"))
	}
	return tw.Flush()
}

// jsonShare is one share of `list --json`. It has no token.
type jsonShare struct {
	ShareID   sharevat.ShareID `json:"share_id"`
	Title     string           `json:"title"`
	ProjectID string           `json:"project_id"`
	Status    *string          `json:"status"`
	Head      sharevat.Cursor  `json:"head"`
	CreatedAt *string          `json:"created_at"`
	UpdatedAt *string          `json:"updated_at"`
	Deleted   bool             `json:"deleted"`
}

// sharesJSON converts shares for --json; an unset status is null.
func sharesJSON(shares []sharevat.Share) []jsonShare {
	out := make([]jsonShare, 0, len(shares))
	for _, sh := range shares {
		j := jsonShare{
			ShareID: sh.ID, Title: sh.Meta.Title, ProjectID: sh.Meta.ProjectID, Head: sh.Head,
			CreatedAt: jsonTime(sh.Meta.CreatedAt), UpdatedAt: jsonTime(sh.Meta.UpdatedAt), Deleted: sh.Deleted,
		}
		if s := sh.Meta.Status.String(); s != "" {
			j.Status = &s
		}
		out = append(out, j)
	}
	return out
}
