package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"

	"github.com/spf13/pflag"
)

var listCommand = command{
	name:    "list",
	args:    "[--project P] [--directory D] [--status S] [--parent ID] [--deleted] [--limit N] --token-file <data>/admin.token",
	summary: "list the shares: id, title, status, head, updated (token: admin)",
	long: `Lists the vat's shares (Admin.list), newest update first (an append counts
as an update): id, title, status, head, updated. Needs the server's admin
token, like 'create'. Never prints a token. Filters: --project, --directory,
--status (idle, busy or error) and --parent (the shares forked from that
share) must all match; --deleted lists deleted shares too. It follows the
server's pages until the end, or until --limit shares are printed.
--json prints an array of {"share_id","title","project_id","directory",
"status","status_at","head","earliest","parent_id","fork_cursor",
"created_at","updated_at","deleted"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var lf listFlags
		cf.register(fs)
		lf.register(fs)
		return cf.run(func(ctx context.Context, env *Env) error {
			f, err := lf.filter()
			if err != nil {
				return err
			}
			return list(ctx, env, &cf, f, lf.limit)
		})
	},
}

// listFlags are the filters of `list`.
type listFlags struct {
	project, directory, status, parent string
	deleted                            bool
	limit                              int
}

func (l *listFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&l.project, "project", "", "only the shares of this project id")
	fs.StringVar(&l.directory, "directory", "", "only the shares of this working directory")
	fs.StringVar(&l.status, "status", "", "only the shares with this status: idle, busy or error")
	fs.StringVar(&l.parent, "parent", "", "only the shares forked from this share id")
	fs.BoolVar(&l.deleted, "deleted", false, "list deleted shares too")
	fs.IntVar(&l.limit, "limit", 0, "print at most N shares (0: all)")
}

// filter checks the flags and returns the server-side filter.
func (l *listFlags) filter() (sharevat.ListFilter, error) {
	f := sharevat.ListFilter{ProjectID: l.project, Directory: l.directory, WithDeleted: l.deleted}
	if l.status != "" {
		s, err := sharevat.ParseStatus(l.status)
		if err != nil {
			return f, usagef("--status: %s", sharevat.ErrorMessage(err))
		}
		f.Status = s
	}
	if l.parent != "" {
		if !sturdyref.ValidID(l.parent) {
			return f, usagef("--parent wants a share id: %d characters a-z and 2-7 (see 'sharevat list')", sturdyref.IDLen)
		}
		f.ParentID = sharevat.ShareID(l.parent)
	}
	if l.limit < 0 {
		return f, usagef("--limit must not be negative (0 lists every share)")
	}
	if l.limit > 0 {
		f.Limit = min(l.limit, sharevat.MaxListLimit)
	}
	return f, nil
}

// list asks the vat for its shares with the admin token, page after
// page, and prints at most limit of them (0: all).
func list(ctx context.Context, env *Env, cf *clientFlags, f sharevat.ListFilter, limit int) error {
	conn, admin, refused, err := dialAdmin(ctx, cf)
	switch {
	case err != nil:
		return err
	case refused != nil:
		return listDenied(refused)
	}
	defer conn.Close()
	defer admin.Release()
	shares := []sharevat.Share{}
	for sh, err := range admin.ListAll(ctx, f) {
		if err != nil {
			return err
		}
		shares = append(shares, sh)
		if len(shares) == limit {
			break
		}
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
	ShareID    sharevat.ShareID `json:"share_id"`
	Title      string           `json:"title"`
	ProjectID  string           `json:"project_id"`
	Directory  string           `json:"directory"`
	Status     *string          `json:"status"`
	StatusAt   *string          `json:"status_at"`
	Head       sharevat.Cursor  `json:"head"`
	Earliest   sharevat.Cursor  `json:"earliest"`
	ParentID   sharevat.ShareID `json:"parent_id"`
	ForkCursor sharevat.Cursor  `json:"fork_cursor"`
	CreatedAt  *string          `json:"created_at"`
	UpdatedAt  *string          `json:"updated_at"`
	Deleted    bool             `json:"deleted"`
}

// sharesJSON converts shares for --json; an unset status or time is null.
func sharesJSON(shares []sharevat.Share) []jsonShare {
	out := make([]jsonShare, 0, len(shares))
	for _, sh := range shares {
		out = append(out, jsonShare{
			ShareID: sh.ID, Title: sh.Meta.Title, ProjectID: sh.Meta.ProjectID, Directory: sh.Meta.Directory,
			Status: statusJSON(sh.Meta.Status), StatusAt: jsonTime(sh.Meta.StatusAt), Head: sh.Head,
			Earliest: sh.Earliest, ParentID: sh.ParentID, ForkCursor: sh.ForkCursor,
			CreatedAt: jsonTime(sh.Meta.CreatedAt), UpdatedAt: jsonTime(sh.Meta.UpdatedAt), Deleted: sh.Deleted,
		})
	}
	return out
}

// statusJSON is a status for --json: null when unset.
func statusJSON(s sharevat.Status) *string {
	if s == sharevat.StatusUnset {
		return nil
	}
	str := s.String()
	return &str
}
