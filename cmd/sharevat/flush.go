package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"sharevat"
	"sharevat/client"
	"sharevat/sturdyref"
)

// stateFlags locate the outbox of `append` and `flush`: one file per
// token's grant id under the state directory, so several shares (and
// several tokens of one share) can use one directory. The token itself
// is never stored.
type stateFlags struct {
	dir      string
	file     string
	lockWait time.Duration
	batch    int
}

func (f *stateFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dir, "state", "", "state directory holding the outboxes (env SHAREVAT_STATE; default $XDG_STATE_HOME/sharevat or ~/.local/state/sharevat)")
	fs.StringVar(&f.file, "outbox", "", "use this outbox file instead of the token's own in the state directory (e.g. to send a revoked token's pending ops with a new token of the same share)")
	fs.DurationVar(&f.lockWait, "lock-wait", 10*time.Second, "how long to wait for another sharevat process using the same outbox")
	fs.IntVar(&f.batch, "batch", client.DefaultMaxBatchOps, "most ops per append call")
}

// stateDir returns the state directory: --state, SHAREVAT_STATE,
// $XDG_STATE_HOME/sharevat (if absolute) or ~/.local/state/sharevat.
func (f *stateFlags) stateDir(env *Env) (string, error) {
	if d := firstNonEmpty(f.dir, env.Getenv("SHAREVAT_STATE")); d != "" {
		return d, nil
	}
	if x := env.Getenv("XDG_STATE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "sharevat"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("state directory: %w (pass --state DIR or set SHAREVAT_STATE)", err)
	}
	return filepath.Join(home, ".local", "state", "sharevat"), nil
}

// path returns the outbox file for token, creating the state directory
// (0700) if needed. A malformed token can never be redeemed: it is
// refused here, before anything is stored.
func (f *stateFlags) path(env *Env, token string) (string, error) {
	if f.file != "" {
		return f.file, nil
	}
	tok, err := sturdyref.Parse(token)
	if err != nil {
		return "", denied(sharevat.Errorf(sharevat.EUnauthorized, "malformed token"))
	}
	dir, err := f.stateDir(env)
	if err == nil {
		err = os.MkdirAll(dir, 0o700)
	}
	if err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	return filepath.Join(dir, "outbox-"+string(tok.GrantID)+".db"), nil
}

// openOutbox opens the outbox at path, sized so that the results of keep
// ops survive until they are reported.
func (f *stateFlags) openOutbox(path string, keep int) (*client.Outbox, error) {
	return client.OpenOutbox(path, client.OutboxOptions{
		MaxBatchOps: f.batch, LockTimeout: f.lockWait, KeepDone: max(keep+1000, 10_000),
	})
}

// newSession is the reconnecting session a flush sends through.
func newSession(cf *clientFlags, token string) *client.Session {
	return client.NewSession(cf.server, token, &client.SessionOptions{MaxBackoff: 2 * time.Second})
}

func runFlush(ctx context.Context, env *Env, args []string) error {
	var cf clientFlags
	var sf stateFlags
	fs := flag.NewFlagSet("flush", flag.ContinueOnError)
	cf.register(fs)
	sf.register(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: sharevat flush

Sends the ops still pending in the token's outbox (left by an append that
was killed, timed out or lost its server) and prints what the server
answered for them. Exit 4 if one was rejected.`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if sf.batch < 1 {
		return usagef("--batch must be at least 1")
	}
	cf.resolve(env)
	ctx, cancel := withTimeout(ctx, cf.timeout)
	defer cancel()
	return flushPending(ctx, env, &cf, &sf)
}

func flushPending(ctx context.Context, env *Env, cf *clientFlags, sf *stateFlags) error {
	token, err := cf.theToken()
	if err != nil {
		return err
	}
	path, err := sf.path(env, token)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return reportRun(env, cf.json, runSummary{})
	}
	ob, err := sf.openOutbox(path, 0)
	if err != nil {
		return err
	}
	defer ob.Close()
	pending, err := pendingIDs(ob)
	if err != nil {
		return err
	}
	return sendAndReport(ctx, env, cf, ob, newSession(cf, token), pending, nil)
}

// pendingIDs lists the op ids pending in ob.
func pendingIDs(ob *client.Outbox) ([]string, error) {
	pend, err := ob.Pending()
	ids := make([]string, len(pend))
	for i, r := range pend {
		ids[i] = r.OpID
	}
	return ids, err
}

// sendAndReport flushes ob and reports on the ops ids (this run's) and
// older (other ops that were pending before).
func sendAndReport(ctx context.Context, env *Env, cf *clientFlags, ob *client.Outbox, s *client.Session, ids, older []string) error {
	defer s.Close()
	ferr := ob.Flush(ctx, s)
	sum, err := summarize(ob, ids, older)
	if err != nil {
		return err
	}
	if ferr != nil {
		return flushFailed(ctx, env, cf, ob, sum, ferr)
	}
	return reportRun(env, cf.json, sum)
}

// runSummary is what happened to the ops of one run.
type runSummary struct {
	ack          sharevat.Ack // this run's ops that were acked; Head: the last acked head
	pending      int          // this run's ops still pending
	older        sharevat.Ack // older ops flushed along
	olderPending int
}

func summarize(ob *client.Outbox, ids, older []string) (runSummary, error) {
	var sum runSummary
	st, err := ob.Status()
	if err == nil {
		sum.ack, sum.pending, err = outcome(ob, ids)
	}
	if err == nil {
		sum.older, sum.olderPending, err = outcome(ob, older)
	}
	sum.ack.Head, sum.older.Head = st.LastAckedCursor, st.LastAckedCursor
	return sum, err
}

// outcome turns the outbox's results for ids into an ack.
func outcome(ob *client.Outbox, ids []string) (sharevat.Ack, int, error) {
	var ack sharevat.Ack
	res, err := ob.Results(ids...)
	pending := 0
	for _, r := range res {
		switch r.State {
		case client.OpDone, client.OpFailed:
			ack.Results = append(ack.Results, sharevat.OpResult{OpID: r.OpID, Status: r.Status, Cursor: r.Cursor, Reason: r.Reason, Message: r.Message})
		default:
			pending++
		}
	}
	ack.Count()
	return ack, pending, err
}

// reportRun prints the summary; a rejected op of this run exits 4.
func reportRun(env *Env, asJSON bool, sum runSummary) error {
	if asJSON {
		out := ackJSON(sum.ack)
		out["pending"] = sum.pending
		if n := len(sum.older.Results) + sum.olderPending; n > 0 {
			older := ackJSON(sum.older)
			older["pending"] = sum.olderPending
			delete(older, "head")
			out["older"] = older
		}
		writeJSON(env.Stdout, out)
	} else {
		printSummary(env, sum)
	}
	if sum.ack.Rejected > 0 {
		return &rejectedError{n: sum.ack.Rejected}
	}
	return nil
}

func printSummary(env *Env, sum runSummary) {
	if len(sum.ack.Results)+sum.pending+len(sum.older.Results) == 0 {
		fmt.Fprintf(env.Stdout, "nothing pending; head is %d\n", sum.ack.Head)
		return
	}
	printAck(env.Stdout, sum.ack)
	if o := sum.older; len(o.Results) > 0 {
		fmt.Fprintf(env.Stdout, "also flushed %d older pending op(s): applied %d, duplicate %d, rejected %d\n", len(o.Results), o.Applied, o.Duplicates, o.Rejected)
		printRejected(env.Stdout, o)
	}
}

// flushFailed prints what was acked before the failure and explains it.
func flushFailed(ctx context.Context, env *Env, cf *clientFlags, ob *client.Outbox, sum runSummary, ferr error) error {
	if len(sum.ack.Results)+len(sum.older.Results) > 0 {
		reportRun(env, cf.json, sum)
	}
	st, err := ob.Status()
	if err != nil {
		return errors.Join(ferr, err)
	}
	last := "no answer from " + cf.server
	if st.LastError != "" {
		last = "last error: " + st.LastError
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ferr = fmt.Errorf("timed out after --timeout %s (%s)", cf.timeout, last)
	case ctx.Err() != nil:
		ferr = fmt.Errorf("interrupted (%s)", last)
	}
	return fmt.Errorf("%w; %d op(s) stay pending in %s: run `sharevat flush` to send them", denied(ferr), st.Pending, ob.Path())
}
