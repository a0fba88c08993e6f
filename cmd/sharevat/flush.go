package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/sturdyref"

	"github.com/spf13/pflag"
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
	progress progressFlags
}

func (f *stateFlags) register(fs *pflag.FlagSet) {
	f.registerLocation(fs)
	f.progress.register(fs)
	fs.IntVar(&f.batch, "batch", client.DefaultMaxBatchOps, "most ops per append call")
}

// registerLocation registers the flags that say where the outbox is.
func (f *stateFlags) registerLocation(fs *pflag.FlagSet) {
	fs.StringVar(&f.dir, "state", "", "state directory holding the outboxes (env SHAREVAT_STATE; default $XDG_STATE_HOME/sharevat or ~/.local/state/sharevat)")
	fs.StringVar(&f.file, "outbox", "", "use this outbox file instead of the token's own in the state directory (e.g. to send a revoked token's pending ops with a new token of the same share)")
	fs.DurationVar(&f.lockWait, "lock-wait", 10*time.Second, "how long to wait for another sharevat process using the same outbox")
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
	return filepath.Join(dir, outboxName(tok.GrantID)), nil
}

// openOutbox opens the outbox at path; every ack it records while open is
// also counted in t, which is what a run reports (the outbox keeps only
// the newest done results, so looking them up afterwards would miss some).
func (f *stateFlags) openOutbox(env *Env, path string, t *tally) (*client.Outbox, error) {
	opts := client.OutboxOptions{MaxBatchOps: f.batch, LockTimeout: f.lockWait, OnAck: t.add, OnSend: t.sent}
	if env.tuneOutbox != nil {
		env.tuneOutbox(&opts)
	}
	return client.OpenOutbox(path, opts)
}

// tally collects the server's answer for each op acked during one run.
type tally struct {
	p *progress // set before the flush starts; shows the counts

	mu       sync.Mutex
	results  map[string]sharevat.OpResult
	redacted int   // secret-shaped strings the server's privacy guard replaced
	dialErr  error // the last failed dial or redeem
}

func newTally() *tally { return &tally{results: make(map[string]sharevat.OpResult)} }

// add records the results of one ack (an OutboxOptions.OnAck).
func (t *tally) add(_ string, ack sharevat.Ack) {
	t.p.ackedOps(len(ack.Results))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.redacted += ack.Redacted
	for _, r := range ack.Results {
		t.results[r.OpID] = r
	}
}

// sent shows a batch sent (an OutboxOptions.OnSend).
func (t *tally) sent(batchID string, n int) { t.p.sentOps(batchID, n) }

// outcome turns the results for ids into an ack, counting the ids not
// acked during this run as pending.
func (t *tally) outcome(ids []string) (sharevat.Ack, int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ack sharevat.Ack
	pending := 0
	for _, id := range ids {
		if r, ok := t.results[id]; ok {
			ack.Results = append(ack.Results, r)
		} else {
			pending++
		}
	}
	ack.Count()
	return ack, pending
}

// retrying records a failed dial or redeem and shows it (an
// OnRetry of the Redeemer).
func (t *tally) retrying(err error, wait time.Duration) {
	t.mu.Lock()
	t.dialErr = err
	t.mu.Unlock()
	t.p.retrying(err, wait)
}

// connected forgets the failed attempts before a redeem that worked, and
// shows it (an OnRedeem of the Redeemer).
func (t *tally) connected() {
	t.mu.Lock()
	t.dialErr = nil
	t.mu.Unlock()
	t.p.connected()
}

// lastDialErr is the last failed dial or redeem since the last redeem
// that worked, or nil.
func (t *tally) lastDialErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.dialErr
}

// newRedeemer is the reconnecting handle a flush sends through; t
// records and shows its failed attempts and its reconnects.
func newRedeemer(cf *clientFlags, token string, t *tally) *client.Redeemer {
	return client.NewRedeemer(cf.server, token, &client.RedeemerOptions{
		MaxBackoff: 2 * time.Second, OnRetry: t.retrying, OnRedeem: t.connected, OnLost: t.p.lost,
	})
}

var flushCommand = command{
	name:    "flush",
	summary: "send the ops still pending in the token's outbox",
	long: `Sends the ops still pending in the token's outbox (left by an append that
was killed, timed out or lost its server) and prints what the server
answered for them. Exit 4 if one was rejected.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var sf stateFlags
		cf.register(fs)
		sf.register(fs)
		return cf.run(func(ctx context.Context, env *Env) error {
			if sf.batch < 1 {
				return usagef("--batch must be at least 1")
			}
			return flushPending(ctx, env, &cf, &sf)
		})
	},
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
	t := newTally()
	ob, err := sf.openOutbox(env, path, t)
	if err != nil {
		return err
	}
	defer ob.Close()
	pending, err := pendingIDs(ob)
	if err != nil {
		return err
	}
	t.p = newProgress(env, &sf.progress, len(pending))
	return sendAndReport(ctx, env, cf, ob, t, newRedeemer(cf, token, t), pending, nil)
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
// older (other ops that were pending before), as counted in t.
func sendAndReport(ctx context.Context, env *Env, cf *clientFlags, ob *client.Outbox, t *tally, s *client.Redeemer, ids, older []string) error {
	defer s.Close()
	ferr := ob.Flush(ctx, s)
	t.p.finish()
	sum, err := summarize(ob, t, ids, older)
	if err != nil {
		return err
	}
	if ferr != nil {
		return flushFailed(ctx, env, cf, ob, sum, ferr, t.lastDialErr())
	}
	rerr := reportRun(env, cf.json, sum)
	if derr := damagedLeft(ob); derr != nil {
		if rerr == nil {
			return derr
		}
		fmt.Fprintf(env.Stderr, "sharevat: %s\n", derr)
	}
	return rerr
}

// runSummary is what happened to the ops of one run.
type runSummary struct {
	ack          sharevat.Ack // this run's ops that were acked; Head: the last acked head
	pending      int          // this run's ops still pending
	older        sharevat.Ack // older ops flushed along
	olderPending int
	redacted     int // in every batch of the run
}

func summarize(ob *client.Outbox, t *tally, ids, older []string) (runSummary, error) {
	var sum runSummary
	st, err := ob.Status()
	sum.ack, sum.pending = t.outcome(ids)
	sum.older, sum.olderPending = t.outcome(older)
	t.mu.Lock()
	sum.redacted = t.redacted
	t.mu.Unlock()
	sum.ack.Head, sum.older.Head = st.LastAckedCursor, st.LastAckedCursor
	return sum, err
}

// reportRun prints the summary; a rejected op of this run exits 4.
func reportRun(env *Env, asJSON bool, sum runSummary) error {
	if asJSON {
		out := ackJSON(sum.ack)
		out["pending"] = sum.pending
		out["redacted"] = sum.redacted
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
	if sum.redacted > 0 {
		fmt.Fprintf(env.Stdout, "redacted %d secret-shaped string(s) before storing (the share's privacy policy)\n", sum.redacted)
	}
	if o := sum.older; len(o.Results) > 0 {
		fmt.Fprintf(env.Stdout, "also flushed %d older pending op(s): applied %d, duplicate %d, rejected %d\n", len(o.Results), o.Applied, o.Duplicates, o.Rejected)
		printRejected(env.Stdout, o)
	}
}

// flushFailed prints what was acked before the failure and explains it.
func flushFailed(ctx context.Context, env *Env, cf *clientFlags, ob *client.Outbox, sum runSummary, ferr, dialErr error) error {
	if len(sum.ack.Results)+len(sum.older.Results) > 0 {
		reportRun(env, cf.json, sum)
	}
	st, err := ob.Status()
	if err != nil {
		return errors.Join(ferr, err)
	}
	if sharevat.IsCannotCheckToken(ferr) || ctx.Err() != nil && sharevat.IsCannotCheckToken(dialErr) {
		su := &serverUnavailable{server: cf.server, timeout: cf.gaveUp(ctx), cause: firstNonNil(dialErr, ferr)}
		return keptUnavailable(su, ob.Path(), st.Pending)
	}
	last := "no answer from " + cf.server
	switch { // this run's failed dial or redeem says it best; else what the outbox recorded
	case dialErr != nil:
		last = "cannot reach " + cf.server + ": " + dialCause(dialErr)
	case st.LastError != "":
		last = "last error: " + st.LastError
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		ferr = fmt.Errorf("timed out after --timeout %s (%s)", cf.timeout, last)
	case ctx.Err() != nil:
		ferr = fmt.Errorf("interrupted (%s)", last)
	}
	if tokenRefused(ferr) {
		return fmt.Errorf("%w; %d op(s) stay pending in the outbox %s, which this token cannot send: "+
			"send them with a token of the same share that can append (`sharevat flush --outbox %s` with that token), "+
			"or discard them (`sharevat outbox discard --pending --outbox %s`)", denied(ferr), st.Pending, ob.Path(), ob.Path(), ob.Path())
	}
	return fmt.Errorf("%w; %d op(s) stay pending in %s: run `sharevat flush` to send them", denied(ferr), st.Pending, ob.Path())
}

// tokenRefused reports whether err means the token itself can never send
// the ops (it lacks the right, or is revoked or unknown), so that
// retrying with it is no way out.
func tokenRefused(err error) bool {
	switch sharevat.ErrorCode(err) {
	case sharevat.EPermissionDenied, sharevat.ERevoked, sharevat.EUnauthorized:
		return true
	}
	return false
}

// keptUnavailable is a flush's failure when the server could not check
// the token (its store is down): the ops are kept, and only waiting
// helps. It stays unavailable (exit 1), never a token's refusal.
func keptUnavailable(su *serverUnavailable, path string, pending int) error {
	return fmt.Errorf("%w; %d op(s) are kept in the outbox %s: run `sharevat flush` to send them once the server is back",
		su, pending, path)
}

func firstNonNil(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
