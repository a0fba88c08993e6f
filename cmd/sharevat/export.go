package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"sharevat"
	"sharevat/client"

	"github.com/spf13/pflag"
)

var exportCommand = command{
	name:    "export",
	args:    "[--file F]",
	summary: "write a share's metadata and whole log as JSON Lines (token: read)",
	long: `Writes one share, as of its head when the export starts, in the sharevat
export format (docs/export-format.md): a header line with the format,
version, an export id, the share's metadata and head, then one line per
op in cursor order with its op id, batch id, seq, cursor, kind, key,
body, delete flag and time. The log is read page by page, never held in
memory. Output goes to stdout, or to --file, written to F.tmp, synced
and renamed, so F is either the whole export or absent. Progress is
shown on a terminal (--quiet: none; --progress: always).
'sharevat import' reads it back.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var pf progressFlags
		var file string
		cf.register(fs)
		noTimeoutByDefault(fs, &cf)
		pf.register(fs)
		fs.StringVar(&file, "file", "", "write to this file instead of stdout")
		return cf.run(func(ctx context.Context, env *Env) error {
			return export(ctx, env, &cf, &pf, file)
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

// export writes the share of the token.
func export(ctx context.Context, env *Env, cf *clientFlags, pf *progressFlags, file string) error {
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
	if info.Earliest > 1 {
		return fmt.Errorf("share %s was compacted: its ops before cursor %d are gone, and an export holds the whole log "+
			"(read its snapshot and follow from there instead: 'sharevat snapshot', 'sharevat read --from %d')", info.ID, info.Earliest, info.Earliest-1)
	}
	var set *exportSettings
	if s, err := sh.Settings(ctx); err == nil {
		set = settingsHeader(s)
	}
	rd, err := sh.Reader(ctx)
	if err != nil {
		return err
	}
	defer rd.Release()
	out, err := createOutput(env, file)
	if err != nil {
		return err
	}
	err = writeExport(ctx, out.w, rd, info, set, newCounter(env, pf, int(info.Head), "exported"))
	return out.finish(err)
}

// writeExport writes the header and the ops 1..info.Head.
func writeExport(ctx context.Context, w *bufio.Writer, rd *client.Reader, info sharevat.Share, set *exportSettings, p *progress) error {
	h := exportHeader{
		Format: exportFormat, Version: exportVersion, ExportID: newExportID(), ExportedAt: rfc3339(time.Now()),
		Share: shareHeader(info), Head: uint64(info.Head), Ops: uint64(info.Head), Settings: set,
	}
	line, err := marshalLine(h)
	if err != nil {
		return err
	}
	if _, err := w.Write(append(line, '\n')); err != nil {
		return err
	}
	defer p.finish()
	return writeLog(ctx, w, rd, info.Head, p)
}

// writeLog pages through the log up to head, writing each op.
func writeLog(ctx context.Context, w *bufio.Writer, rd *client.Reader, head sharevat.Cursor, p *progress) error {
	var from sharevat.Cursor
	for from < head {
		entries, _, err := rd.Read(ctx, from, 0)
		if err != nil {
			return exportReadError(err)
		}
		if len(entries) == 0 {
			return fmt.Errorf("the log ends at cursor %d, before the head %d it had when the export began", from, head)
		}
		for i := range entries {
			if entries[i].Cursor > head {
				return nil
			}
			if err := writeOp(w, &entries[i], from); err != nil {
				return err
			}
			from = entries[i].Cursor
		}
		p.ackedOps(len(entries))
	}
	return nil
}

// writeOp writes one op, which must follow the cursor prev.
func writeOp(w io.Writer, e *sharevat.Entry, prev sharevat.Cursor) error {
	if e.Cursor != prev+1 {
		return fmt.Errorf("the log jumps from cursor %d to %d", prev, e.Cursor)
	}
	line, err := opLine(e)
	if err != nil {
		return err
	}
	_, err = w.Write(line)
	return err
}

// exportReadError explains a read refused because the share was
// compacted: the export would not hold the whole log.
func exportReadError(err error) error {
	if sharevat.ErrorCode(err) == sharevat.ECompacted {
		return fmt.Errorf("%w; an export holds the whole log, and its first ops are gone", err)
	}
	return err
}

// newExportID is 16 random bytes in hex: what tells one export from
// another (import resumes an interrupted import of the same export).
func newExportID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
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
