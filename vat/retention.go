package vat

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sharevat/sharevat"
)

// Defaults of Retention.
const (
	DefaultRetentionEvery  = time.Minute
	DefaultRetentionShares = 1000
	DefaultRetentionOps    = 100_000
	DefaultRetentionPause  = time.Second
)

// Retention configures the background job that applies the shares'
// retention settings (Settings.RetainOps, RetainFor): every Every it
// lists the next page of at most Shares shares (newest update first,
// resuming where the last pass stopped, from the top once at the end)
// and compacts those whose settings retain only recent ops, dropping at
// most Ops log entries in all, in transactions of at most 4,096. A share
// it could not finish is continued first by the next pass, which then
// comes after Pause rather than Every, so a job that fell behind catches
// up at up to Ops entries per Pause. Configure wakes the job at once when
// it sets a retention.
type Retention struct {
	// Every is the time between passes. Zero: DefaultRetentionEvery;
	// negative: no background job at all.
	Every time.Duration
	// Shares is the most shares one pass lists (at most
	// sharevat.MaxListLimit). Zero: DefaultRetentionShares.
	Shares int
	// Ops is the most log entries one pass drops. Zero:
	// DefaultRetentionOps.
	Ops int
	// Pause is the time before the next pass when a pass stopped on its
	// Ops budget with work left. Zero: DefaultRetentionPause.
	Pause time.Duration
	// Ticks, if set, replaces the timer: each value received starts a
	// pass. Tests drive the job with it (and the vat's Config.Now).
	Ticks <-chan time.Time
	// OnPass, if set, is called after every pass with what it did, on
	// the job's goroutine: for metrics and tests. It must not block.
	OnPass func(RetentionPass)
}

func (r Retention) withDefaults() Retention {
	if r.Every == 0 {
		r.Every = DefaultRetentionEvery
	}
	if r.Shares <= 0 {
		r.Shares = DefaultRetentionShares
	}
	r.Shares = min(r.Shares, sharevat.MaxListLimit)
	if r.Ops <= 0 {
		r.Ops = DefaultRetentionOps
	}
	if r.Pause <= 0 {
		r.Pause = DefaultRetentionPause
	}
	return r
}

// RetentionPass is what one pass of the retention job did.
type RetentionPass struct {
	Listed    int           // shares listed
	Compacted int           // shares it compacted
	Dropped   uint64        // log entries it dropped
	Errors    int           // shares whose compaction failed (logged)
	More      bool          // it stopped on its budget with work left
	Took      time.Duration // how long the pass took
}

// RetentionStats are the retention job's totals since the vat started.
type RetentionStats struct {
	Passes    uint64
	Compacted uint64 // share compactions
	Dropped   uint64 // log entries dropped
	Errors    uint64
}

// retainer is the retention job. Its goroutine alone touches queue and
// next; the totals are atomics, read by RetentionStats.
type retainer struct {
	v      *Vat
	cfg    Retention
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	wakeCh chan struct{}

	queue []sharevat.ShareID // shares with a retention, listed and not yet done
	next  string             // the next page's token; "" for the first page

	passes, compacted, dropped, errs atomic.Uint64
}

// startRetention starts the job's goroutine unless Retention.Every is
// negative and no Ticks are given; Close stops it and waits for it.
func (v *Vat) startRetention() {
	r := &retainer{v: v, cfg: v.cfg.Retention, wakeCh: make(chan struct{}, 1)}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	v.retention = r
	if r.cfg.Every < 0 && r.cfg.Ticks == nil {
		return
	}
	r.wg.Add(1)
	go r.run()
}

// stop ends the job and waits for it, or for ctx.
func (r *retainer) stop(ctx context.Context) error {
	r.cancel()
	return waitCtx(ctx, &r.wg)
}

// wake asks for a pass now (Configure set a retention); it never blocks.
func (r *retainer) wake() {
	select {
	case r.wakeCh <- struct{}{}:
	default:
	}
}

// RetentionStats returns the retention job's totals.
func (v *Vat) RetentionStats() RetentionStats {
	r := v.retention
	return RetentionStats{Passes: r.passes.Load(), Compacted: r.compacted.Load(), Dropped: r.dropped.Load(), Errors: r.errs.Load()}
}

func (r *retainer) run() {
	defer r.wg.Done()
	ticks := r.cfg.Ticks
	if ticks == nil {
		t := time.NewTicker(r.cfg.Every)
		defer t.Stop()
		ticks = t.C
	}
	soon := time.NewTimer(r.cfg.Pause) // the catch-up pass after a pass with work left
	soon.Stop()
	defer soon.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-ticks:
		case <-r.wakeCh:
		case <-soon.C:
		}
		p := r.pass(r.ctx)
		r.passes.Add(1)
		if r.cfg.OnPass != nil {
			r.cfg.OnPass(p)
		}
		if p.More && r.cfg.Ticks == nil { // driven by hand: the driver decides
			soon.Reset(r.cfg.Pause)
		}
	}
}

// pass lists the next page of shares when its queue is empty, then
// compacts the queued shares within the pass's budget of entries.
func (r *retainer) pass(ctx context.Context) RetentionPass {
	start := time.Now()
	var p RetentionPass
	if len(r.queue) == 0 {
		p.Listed = r.list(ctx)
	}
	budget := uint64(r.cfg.Ops)
	for len(r.queue) > 0 && budget > 0 && ctx.Err() == nil {
		id := r.queue[0]
		dropped, more, err := r.retain(ctx, id, budget)
		budget -= min(budget, dropped)
		r.dropped.Add(dropped)
		p.Dropped += dropped
		if dropped > 0 {
			p.Compacted++
			r.compacted.Add(1)
		}
		if err != nil && ctx.Err() == nil {
			p.Errors++
			r.errs.Add(1)
			r.v.log.Warn("retention: compaction failed", "share", id, "err", err)
		}
		if more && err == nil && budget == 0 {
			p.More = true
			break // continued first by the next pass
		}
		r.queue = r.queue[1:]
	}
	p.More = p.More || (budget == 0 && len(r.queue) > 0)
	p.Took = time.Since(start)
	lvl := slog.LevelDebug
	if p.Dropped > 0 {
		lvl = slog.LevelInfo
	}
	r.v.log.Log(ctx, lvl, "retention pass", "listed", p.Listed, "compacted", p.Compacted, "dropped", p.Dropped,
		"errors", p.Errors, "behind", p.More, "took", p.Took)
	return p
}

// list fetches the next page of live shares and queues those whose
// settings retain only recent ops; after the last page, the next list
// starts again from the first. It returns how many shares it listed.
func (r *retainer) list(ctx context.Context) int {
	page, next, err := r.v.store.ListShares(ctx, sharevat.ListFilter{Limit: r.cfg.Shares, PageToken: r.next})
	if err != nil {
		if ctx.Err() == nil {
			r.v.log.Warn("retention: listing shares failed; starting over at the next pass", "err", err)
		}
		r.next = ""
		return 0
	}
	r.next = next
	for i := range page {
		if hasRetention(page[i].Settings) {
			r.queue = append(r.queue, page[i].ID)
		}
	}
	return len(page)
}

func hasRetention(s sharevat.Settings) bool { return s.RetainOps > 0 || s.RetainFor > 0 }

// retain compacts one share as far as its settings allow, dropping at
// most budget entries. It reports how many it dropped, and whether more
// would have gone without the budget.
func (r *retainer) retain(ctx context.Context, id sharevat.ShareID, budget uint64) (uint64, bool, error) {
	v := r.v
	set, err := v.shareSettings(ctx, id) // the settings as of now, not as listed
	if err != nil || !hasRetention(set) {
		return 0, false, ignoreGone(err)
	}
	sh, err := v.store.Share(ctx, id)
	if err != nil || sh.Deleted {
		return 0, false, ignoreGone(err)
	}
	target, err := v.retentionTarget(ctx, sh, set, v.now())
	if err != nil || target <= sh.Earliest {
		return 0, false, ignoreGone(err)
	}
	before := min(target, sh.Earliest+sharevat.Cursor(budget))
	earliest, dropped, err := v.compact(ctx, id, before)
	if dropped > 0 {
		v.log.Debug("retention compacted a share", "share", id, "dropped", dropped, "earliest", earliest)
	}
	return dropped, earliest < target, ignoreGone(err)
}

// ignoreGone drops the error of a share deleted under the job's feet,
// or compacted by someone else meanwhile: nothing to do, not a failure.
func ignoreGone(err error) error {
	switch sharevat.ErrorCode(err) {
	case sharevat.ENotFound, sharevat.ECompacted:
		return nil
	}
	return err
}

// retentionTarget returns the cursor before which sh's settings let its
// ops go at now: by count, those before the last RetainOps; by age, those
// appended before now-RetainFor; with both set, the earlier of the two
// (an op goes once both allow it). Ops are found by age with a binary
// search over their append times, which the vat's clock makes
// non-decreasing along the log (a clock stepped back keeps some ops
// longer, never drops a newer one).
func (v *Vat) retentionTarget(ctx context.Context, sh sharevat.Share, set sharevat.Settings, now time.Time) (sharevat.Cursor, error) {
	all := sh.Head + 1 // nothing is kept
	byOps, byAge := all, all
	if n := set.RetainOps; n > 0 {
		byOps = 1
		if uint64(sh.Head) >= n {
			byOps = sh.Head - sharevat.Cursor(n) + 1
		}
	}
	if set.RetainFor > 0 {
		var err error
		if byAge, err = v.firstSince(ctx, sh, now.Add(-set.RetainFor)); err != nil {
			return 0, err
		}
	}
	return min(byOps, byAge), nil
}

// firstSince returns the first cursor in [Earliest, Head] of an op
// appended at or after cutoff, or Head+1 if none was.
func (v *Vat) firstSince(ctx context.Context, sh sharevat.Share, cutoff time.Time) (sharevat.Cursor, error) {
	lo, hi := max(sh.Earliest, 1), sh.Head+1
	for lo < hi {
		mid := lo + (hi-lo)/2
		entries, _, err := v.store.Read(ctx, sh.ID, mid-1, 1)
		if err != nil {
			return 0, err
		}
		if len(entries) == 0 || !entries[0].At.Before(cutoff) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo, nil
}
