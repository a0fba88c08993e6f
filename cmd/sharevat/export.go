package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/exportfile"

	"github.com/spf13/pflag"
)

var exportCommand = command{
	name:    "export",
	args:    "[--file F]",
	summary: "write a share's metadata and log as JSON Lines (token: read)",
	long: `Writes one share, as of its head when the export starts, in the sharevat
export format (docs/export-format.md): a header line with the format,
version, an export id, the share's metadata and head, then one line per
op in cursor order with its op id, batch id, seq, cursor, kind, key,
body, delete flag and time. A compacted share is exported from its
earliest cursor, after its state as the compaction left it (format
version 2). The log is read page by page, never held in memory. Output
goes to stdout, or to --file, written to F.tmp, synced and renamed, so
F is either the whole export or absent. Progress is shown on a terminal
(--quiet: none; --progress: always).
'sharevat import' reads it back.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var pf progressFlags
		var file string
		cf.register(fs)
		pf.register(fs)
		fs.StringVar(&file, "file", "", "write to this file instead of stdout")
		return cf.runWatched(fs, func(ctx context.Context, env *Env, w *watchdog) error {
			return export(ctx, env, &cf, &pf, w, file)
		})
	},
}

// noTimeoutByDefault makes --timeout unlimited unless given: a whole log
// can take longer than a client command's usual 30s.
func noTimeoutByDefault(fs *pflag.FlagSet, cf *clientFlags) {
	cf.timeout = 0
	f := fs.Lookup("timeout")
	f.DefValue, f.Usage = "0s", "give up after this long (0: no limit)"
}

// export writes the share of the token: from cursor 1 in format
// version 1, or, for a compacted share, from its earliest cursor with
// the base state in version 2 (docs/export-format.md).
func export(ctx context.Context, env *Env, cf *clientFlags, pf *progressFlags, w *watchdog, file string) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	defer sh.Release()
	info, _, err := sh.Fetch(ctx)
	if err != nil {
		return err
	}
	x := &exportfile.Export{Share: info, Earliest: max(info.Earliest, 1), Head: info.Head}
	if s, err := sh.Settings(ctx); err == nil {
		x.Settings = &s
	}
	rd, err := sh.Reader(ctx)
	if err != nil {
		return err
	}
	defer rd.Release()
	if x.Earliest > 1 {
		if err := compactedBase(ctx, rd, x); err != nil {
			return err
		}
	}
	out, err := createOutput(env, file)
	if err != nil {
		return err
	}
	p := newCounter(env, pf, int(x.Head-x.Earliest+1), "exported")
	x.Progress = func(n int) { w.progress(); p.ackedOps(n) }
	err = exportfile.Write(ctx, out.w, rd, x)
	p.finish()
	return out.finish(err)
}

// compactedBase sets x's base, the state at x.Earliest-1 as far as the
// snapshot tells it: every entity no op from x.Earliest on has written
// since (the later ops, exported, rewrite the others). The export ends
// at the snapshot's cursor, so that base and log agree.
func compactedBase(ctx context.Context, rd *client.Reader, x *exportfile.Export) error {
	ents, cur, err := rd.Snapshot(ctx)
	if err != nil {
		if sharevat.ErrorCode(err) == sharevat.ETooLarge {
			return fmt.Errorf("%w: a compacted share is exported with its state, and this one's is too large to read at once", err)
		}
		return err
	}
	x.Head = cur
	for _, e := range ents {
		if e.Cursor < x.Earliest {
			x.Base = append(x.Base, e)
		}
	}
	return nil
}

// newCounter returns a progress bar of total items labelled what (nil
// with --quiet; no bar unless stderr is a terminal, or --progress).
func newCounter(env *Env, pf *progressFlags, total int, what string) *progress {
	p := newProgress(env, pf, total)
	if p != nil && p.bar != nil {
		p.bar.Describe(what)
	}
	return p
}

// output is where an export goes: stdout, or a file written to F.tmp
// and renamed to F once complete.
type output struct {
	w    *bufio.Writer
	f    *os.File // nil for stdout
	path string
}

// createOutput opens file's temporary file, or stdout when file is "".
func createOutput(env *Env, file string) (*output, error) {
	if file == "" {
		return &output{w: bufio.NewWriterSize(env.Stdout, 256<<10)}, nil
	}
	if fi, err := os.Stat(filepath.Dir(file)); err != nil || !fi.IsDir() {
		return nil, usagef("--file %q: its directory does not exist", file)
	}
	f, err := os.OpenFile(file+".tmp", os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--file: %w", err)
	}
	return &output{w: bufio.NewWriterSize(f, 256<<10), f: f, path: file}, nil
}

// finish flushes the output; a file is synced and renamed into place,
// or removed when err is set.
func (o *output) finish(err error) error {
	if err == nil {
		err = o.w.Flush()
	}
	if o.f == nil {
		return err
	}
	if err == nil {
		err = o.f.Sync()
	}
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.path+".tmp", o.path)
	}
	if err != nil {
		os.Remove(o.path + ".tmp")
		return err
	}
	return syncDir(filepath.Dir(o.path))
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
