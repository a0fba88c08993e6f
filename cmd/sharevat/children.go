package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sharevat/sharevat"

	"github.com/spf13/pflag"
)

var childrenCommand = command{
	name:    "children",
	summary: "list the shares forked from this one",
	long: `Lists the live shares forked from this token's share, oldest first: id,
title, status, the cursor it was forked at, its head and when it was
created. Needs the read right. Never prints a token: a fork's owner token
went to whoever forked it. --json prints an array of {"share_id","title",
"status","fork_cursor","head","created_at"}.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		cf.register(fs)
		return cf.run(func(ctx context.Context, env *Env) error { return children(ctx, env, &cf) })
	},
}

func children(ctx context.Context, env *Env, cf *clientFlags) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	kids, err := sh.Children(ctx)
	if err != nil {
		return err
	}
	if cf.json {
		return writeJSON(env.Stdout, childrenJSON(kids))
	}
	return printChildren(env.Stdout, kids)
}

// printChildren writes the forks as a table, one a line.
func printChildren(w io.Writer, kids []sharevat.Share) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tSTATUS\tFORKED-AT\tHEAD\tCREATED")
	for _, sh := range kids {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%s\n", sh.ID, orDash(printable(sh.Meta.Title)),
			orDash(sh.Meta.Status.String()), sh.ForkCursor, sh.Head, stamp(sh.Meta.CreatedAt, "-"))
	}
	return tw.Flush()
}

// jsonChild is one fork of `children --json`.
type jsonChild struct {
	ShareID    sharevat.ShareID `json:"share_id"`
	Title      string           `json:"title"`
	Status     *string          `json:"status"`
	ForkCursor sharevat.Cursor  `json:"fork_cursor"`
	Head       sharevat.Cursor  `json:"head"`
	CreatedAt  *string          `json:"created_at"`
}

func childrenJSON(kids []sharevat.Share) []jsonChild {
	out := make([]jsonChild, 0, len(kids))
	for _, sh := range kids {
		out = append(out, jsonChild{ShareID: sh.ID, Title: sh.Meta.Title, Status: statusJSON(sh.Meta.Status),
			ForkCursor: sh.ForkCursor, Head: sh.Head, CreatedAt: jsonTime(sh.Meta.CreatedAt)})
	}
	return out
}
