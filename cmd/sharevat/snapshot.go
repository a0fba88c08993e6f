package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

var snapshotCommand = command{
	name:    "snapshot",
	args:    "[--newest]",
	summary: "print a share's materialized state as JSON",
	long: `Prints the materialized state as JSON: {"cursor": N, "entities": [{"kind","key","body","cursor","at"}]},
in (kind, key) order, or newest change first with --newest. It follows the state page by page
(Reader.snapshotPage) and writes each page as it comes, so a share of any size prints in bounded
memory. cursor is the head when the first page was read; an entity changed while later pages are
read shows its newer version (and, with --newest, one changed during the walk is left out: read
the log after cursor for it).`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var newest bool
		cf.register(fs)
		fs.BoolVar(&newest, "newest", false, "newest change first instead of (kind, key) order")
		return cf.runWatched(fs, func(ctx context.Context, env *Env, w *watchdog) error {
			order := sharevat.ByKey
			if newest {
				order = sharevat.ByChange
			}
			return snapshot(ctx, env, &cf, w, order)
		})
	},
}

// snapshot prints the share's materialized state, page by page; each
// page received is progress for w.
func snapshot(ctx context.Context, env *Env, cf *clientFlags, w *watchdog, order sharevat.StateOrder) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	rd, err := sh.Reader(ctx)
	if err != nil {
		return err
	}
	return printState(ctx, env.Stdout, rd, w, order)
}

// printState streams {"cursor":…,"entities":[…]} to w, one page at a
// time: the opening once the first page gives the head, then each
// page's entities, flushed.
func printState(ctx context.Context, out io.Writer, rd *client.Reader, w *watchdog, order sharevat.StateOrder) error {
	bw := bufio.NewWriter(out)
	n, opened := 0, false
	for page, err := range rd.StatePages(ctx, sharevat.StatePageRequest{Order: order}) {
		if err != nil {
			return err
		}
		w.progress()
		if !opened {
			fmt.Fprintf(bw, `{"cursor":%d,"entities":[`, page.Head)
			opened = true
		}
		for i := range page.Entities {
			if err := writeEntity(bw, &page.Entities[i], n > 0); err != nil {
				return err
			}
			n++
		}
		if err := bw.Flush(); err != nil {
			return err
		}
	}
	if _, err := bw.WriteString("]}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// writeEntity writes one entity of the entities array.
func writeEntity(w *bufio.Writer, e *sharevat.Entity, comma bool) error {
	b, err := json.Marshal(jsonEntity{Kind: e.Kind, Key: e.Key, Body: rawBody(e.Body), Cursor: uint64(e.Cursor), At: e.At.Format(time.RFC3339Nano)})
	if err != nil {
		return err
	}
	if comma {
		w.WriteByte(',')
	}
	_, err = w.Write(b)
	return err
}
