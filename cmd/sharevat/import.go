package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/exportfile"

	"github.com/spf13/pflag"
)

var importCommand = command{
	name:    "import",
	args:    "[--file F] [--title T] --token-file <data>/admin.token",
	summary: "create a share from an export (sharevat's, or opencode's) and print its owner token (token: admin)",
	long: `Creates a share from a sharevat export (docs/export-format.md) or from an
opencode session export ('opencode export <sessionID>'), read from stdin
or --file; the format is detected, or named with --from. It needs the
server's admin token, like 'create' (or none with a vat started with
--open), and prints the new share's owner token on stdout as soon as the
share exists. The input is read through and checked first (stdin is
copied to an unlinked spool file in the state directory meanwhile):
a damaged input creates nothing.

Settings in a sharevat export's header are not applied blindly: the new
share takes the export's privacy policy only if it is stricter than the
server's default, and never its retention, unless --apply-settings says
so; import prints what it applied. The ops keep their op ids and order; they go through a
durable outbox in the state directory (--state), under imports/. The
export of a compacted share (format version 2) first recreates the
state the compaction left, one op per entity.

If the import is interrupted (killed, --timeout, server lost), run the
same command again: it finds the share it created (imports/<key>.json,
keyed by the server and the export's identity), mints a new owner token
for it with the admin token (the one printed before dies), and appends
what is missing, never anything twice. --into TOKEN (or --into-file F)
appends into a share given by one of its tokens instead, e.g. the owner
token the interrupted run printed. --new imports into a new share even
if this export was imported before. Exit 4 when an op was rejected.`,
	setup: func(fs *pflag.FlagSet) runner {
		var f importFlags
		f.register(fs)
		return f.cf.run(func(ctx context.Context, env *Env) error { return runImport(ctx, env, &f) })
	},
}

// importFlags are import's flags.
type importFlags struct {
	cf       clientFlags
	pf       progressFlags
	file     string
	title    string
	from     string
	into     string
	intoFile string
	state    string
	lockWait time.Duration
	batch    int
	fresh    bool

	applySettings bool
}

func (f *importFlags) register(fs *pflag.FlagSet) {
	f.cf.register(fs)
	noTimeoutByDefault(fs, &f.cf)
	fs.StringVar(&f.file, "file", "", "read the export from this file instead of stdin")
	fs.StringVar(&f.title, "title", "", "title of the new share (default: the export's)")
	fs.StringVar(&f.from, "from", exportfile.FromAuto, "input format: auto, sharevat or opencode")
	fs.StringVar(&f.into, "into", "", "append into the share of this token (needs append) instead of creating one")
	fs.StringVar(&f.intoFile, "into-file", "", "like --into, the token read from this file")
	fs.StringVar(&f.state, "state", "", "state directory (env SHAREVAT_STATE; default $XDG_STATE_HOME/sharevat or ~/.local/state/sharevat)")
	fs.DurationVar(&f.lockWait, "lock-wait", 10*time.Second, "how long to wait for another run of the same import")
	fs.IntVar(&f.batch, "batch", client.DefaultMaxBatchOps, "most ops per append call")
	fs.BoolVar(&f.fresh, "new", false, "import into a new share even if this export was imported (or half imported) before")
	fs.BoolVar(&f.applySettings, "apply-settings", false,
		"give the new share the export's settings as they are, even a weaker privacy policy and retention (default: only a stricter privacy policy)")
	f.pf.register(fs)
}

// check refuses bad flag values.
func (f *importFlags) check() error {
	switch {
	case f.batch < 1:
		return usagef("--batch must be at least 1")
	case f.from != exportfile.FromAuto && f.from != exportfile.FromSharevat && f.from != exportfile.FromOpencode:
		return usagef("--from %q: want auto, sharevat or opencode", f.from)
	case f.into != "" && f.intoFile != "":
		return usagef("give --into or --into-file, not both")
	case f.fresh && (f.into != "" || f.intoFile != ""):
		return usagef("--new creates a share; --into appends into one: give one of them")
	}
	return checkServer(f.cf.server)
}

// intoToken returns the token of --into or --into-file, or "".
func (f *importFlags) intoToken() (string, error) {
	if f.intoFile != "" {
		b, err := os.ReadFile(f.intoFile)
		if err != nil {
			return "", fmt.Errorf("--into-file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	return strings.TrimSpace(f.into), nil
}

// runImport checks the input, then imports it.
func runImport(ctx context.Context, env *Env, f *importFlags) error {
	if err := f.check(); err != nil {
		return err
	}
	sf := stateFlags{dir: f.state}
	sd, err := sf.stateDir(env)
	if err != nil {
		return err
	}
	dir, err := importDir(sd)
	if err != nil {
		return err
	}
	in := &importInput{env: env, file: f.file, dir: dir}
	src, done, err := openSource(in, f.from)
	if err != nil {
		return err
	}
	defer done()
	im, err := newImporter(env, f, dir, src)
	if err != nil {
		return err
	}
	defer im.ob.Close()
	return im.run(ctx)
}

// importer runs one import.
type importer struct {
	env    *Env
	f      *importFlags
	src    exportfile.Source
	st     *importState
	ob     *client.Outbox
	p      *progress
	counts importCounts

	settings *settingsOutcome // what create did with the export's settings
}

// newImporter opens the import's outbox (its lock) and state.
func newImporter(env *Env, f *importFlags, dir string, src exportfile.Source) (*importer, error) {
	var err error
	key := importKey(f.cf.server, src.Identity())
	im := &importer{env: env, f: f, src: src}
	statePath, obPath := filepath.Join(dir, key+".json"), filepath.Join(dir, key+".db")
	if im.ob, err = im.openOutbox(obPath); err != nil {
		return nil, err
	}
	if f.fresh {
		if err := im.forget(obPath, statePath); err != nil {
			return nil, err
		}
	}
	if im.st, err = loadImportState(statePath, key, f.cf.server, src.Identity()); err != nil {
		im.ob.Close()
		return nil, err
	}
	return im, nil
}

// openOutbox opens the import's outbox, which counts every ack. It
// keeps a single done op (the state counts them): with the default
// 10,000, a file of the last 10,000 ops' bodies (213 MB for one of 16
// KiB ops) stayed in the state directory, and in the import's RSS.
func (im *importer) openOutbox(path string) (*client.Outbox, error) {
	return client.OpenOutbox(path, client.OutboxOptions{
		MaxBatchOps: im.f.batch, LockTimeout: im.f.lockWait, KeepDone: 1,
		OnAck:  im.counts.add,
		OnSend: func(batchID string, n int) { im.p.sentOps(batchID, n) },
	})
}

// forget drops an earlier import of the same export (--new): its state
// and its outbox, whose pending ops were bound for the old share.
func (im *importer) forget(obPath, statePath string) error {
	im.ob.Close()
	for _, p := range []string{obPath, statePath} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	var err error
	im.ob, err = im.openOutbox(obPath)
	return err
}

// run finds or creates the target share, then appends every op not yet
// acknowledged, chunk by chunk, recording progress in the state.
func (im *importer) run(ctx context.Context) error {
	token, err := im.target(ctx)
	if err != nil {
		return err
	}
	remaining := im.src.Total() - im.st.Done
	im.p = newProgress(im.env, &im.f.pf, remaining)
	im.counts.p = im.p
	r := client.NewRedeemer(im.f.cf.server, token, &client.RedeemerOptions{
		MaxBackoff: 2 * time.Second, OnRetry: im.p.retrying, OnRedeem: im.p.connected, OnLost: im.p.lost,
	})
	defer r.Close()
	if err := im.skip(); err != nil {
		return err
	}
	err = im.send(ctx, r)
	im.p.finish()
	if err != nil {
		im.reportJSON(token)
		return im.failed(ctx, err)
	}
	return im.report(token)
}

// skip passes over the ops an earlier run had acknowledged.
func (im *importer) skip() error {
	for i := 0; i < im.st.Done; i++ {
		if _, err := im.src.Next(); err != nil {
			return fmt.Errorf("the input has fewer ops (%d) than the earlier run acknowledged (%d): is it the same export? (it changed while it was read)", i, im.st.Done)
		}
	}
	return nil
}

// importChunk is how many ops are stored in the outbox at once, and
// importChunkBytes about how many bytes of bodies: what an import holds
// in memory at a time.
const (
	importChunk      = 2000
	importChunkBytes = 4 << 20
)

// importChunkEnv, set to a number from 1 to importChunk, replaces importChunk. Only
// tests set it: the tests that SIGKILL an import between two chunks run
// the binary (the kill is their subject), which no option of the
// package's reaches, and with a chunk of 200 they need 600 ops instead
// of 6,000. It is not a setting for users, and no help names it.
const importChunkEnv = "SHAREVAT_TEST_IMPORT_CHUNK"

// chunkOps is importChunk, or importChunkEnv's value when it is smaller.
func (im *importer) chunkOps() int {
	if n, err := strconv.Atoi(im.env.Getenv(importChunkEnv)); err == nil && n > 0 && n < importChunk {
		return n
	}
	return importChunk
}

// send stores the remaining ops in the outbox a chunk at a time and
// flushes each, recording after each how many are acknowledged.
func (im *importer) send(ctx context.Context, r *client.Redeemer) error {
	base := im.st.Rejected
	for {
		chunk, err := im.readChunk()
		if err != nil {
			return err
		}
		if len(chunk) == 0 {
			im.st.Complete = true
			return im.st.save()
		}
		if _, err := im.ob.Enqueue(ctx, chunk...); err != nil {
			return err
		}
		if err := im.ob.Flush(ctx, r); err != nil {
			return err
		}
		im.st.Done += len(chunk)
		im.st.Rejected = base + im.counts.rejectedN()
		if err := im.st.save(); err != nil {
			return err
		}
	}
}

// readChunk reads up to chunkOps ops or importChunkBytes. The input
// was read through once already, so an error means it changed since.
func (im *importer) readChunk() ([]sharevat.Op, error) {
	var ops []sharevat.Op
	size := 0
	for n := im.chunkOps(); len(ops) < n && size < importChunkBytes; {
		op, err := im.src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, exportfile.Changed(err)
		}
		ops = append(ops, op)
		size += len(op.Body) + len(op.OpID) + len(op.Key)
	}
	return ops, nil
}

// failed explains an import that stopped before its end, and what to
// do: a re-run resumes it, with the same input (which stdin may not be).
func (im *importer) failed(ctx context.Context, err error) error {
	var changed *exportfile.ChangedError
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("timed out after --timeout %s", im.f.cf.timeout)
	case ctx.Err() != nil:
		err = errors.New("interrupted")
	case tokenRefused(err):
		return denied(err)
	case errors.As(err, &changed):
		return fmt.Errorf("%w; %d of %d ops are imported into share %s: give the same command the input as it was to complete the import, "+
			"or pass --new to import the changed input into a new share", err, im.st.Done, im.src.Total(), im.st.Share)
	}
	again := "run the same command again"
	if im.f.file == "" {
		again += ", with the same input on stdin,"
	}
	return fmt.Errorf("%w; %d of %d ops are imported into share %s: %s to complete the import",
		err, im.st.Done, im.src.Total(), im.st.Share, again)
}

// report prints the outcome: the counts on stderr (or everything as
// JSON on stdout); exit 4 when an op was rejected.
func (im *importer) report(token string) error {
	c := &im.counts
	if im.f.cf.json {
		im.reportJSON(token)
	} else {
		fmt.Fprintf(im.env.Stderr, "imported %d op(s) into share %s: applied %d, duplicate %d, rejected %d\n",
			im.src.Total(), im.st.Share, c.applied, c.duplicates, im.st.Rejected)
		printRejected(im.env.Stderr, sharevat.Ack{Results: c.rejected})
	}
	if im.st.Rejected > 0 {
		return &rejectedError{n: im.st.Rejected}
	}
	return nil
}

// reportJSON prints the outcome as one JSON object with --json (the
// token included, also when the import stopped half way).
func (im *importer) reportJSON(token string) {
	if !im.f.cf.json {
		return
	}
	c := &im.counts
	writeJSON(im.env.Stdout, map[string]any{
		"share_id": im.st.Share, "token": token, "ops": im.src.Total(), "done": im.st.Done, "complete": im.st.Complete,
		"applied": c.applied, "duplicates": c.duplicates, "rejected": im.st.Rejected, "results": c.rejectedJSON(),
		"settings": im.settingsJSON(),
	})
}

// importCounts tallies the acks of one run; it keeps the first rejected
// results to show them, not every result.
type importCounts struct {
	p *progress

	mu         sync.Mutex
	applied    int
	duplicates int
	rejected   []sharevat.OpResult
	nRejected  int
}

// maxShownRejected bounds the rejected ops import lists.
const maxShownRejected = 50

func (c *importCounts) add(_ string, ack sharevat.Ack) {
	c.p.ackedOps(len(ack.Results))
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range ack.Results {
		switch r.Status {
		case sharevat.StatusApplied:
			c.applied++
		case sharevat.StatusDuplicate:
			c.duplicates++
		default:
			c.nRejected++
			if len(c.rejected) < maxShownRejected {
				c.rejected = append(c.rejected, r)
			}
		}
	}
}

func (c *importCounts) rejectedN() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nRejected
}

func (c *importCounts) rejectedJSON() []jsonResult {
	out := make([]jsonResult, len(c.rejected))
	for i, r := range c.rejected {
		out[i] = jsonResult{OpID: r.OpID, Status: r.Status.String(), Reason: r.Reason.String(), Message: r.Message}
	}
	return out
}
