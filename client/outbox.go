package client

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/outbox"
)

// Defaults of OutboxOptions.
const (
	DefaultMaxBatchOps   = 500
	DefaultMaxBatchBytes = 4 << 20 // half the server's default limit
)

// OutboxOptions tune an Outbox; the zero value is fine. MaxBatchOps and
// MaxBatchBytes must not exceed the server's limits (its defaults are
// 1000 ops and 8 MiB).
type OutboxOptions struct {
	MaxBatchOps   int           // most ops per append call; default 500
	MaxBatchBytes int           // most bytes per append call, counted as the server does; default 4 MiB (a bigger op goes alone)
	LockTimeout   time.Duration // how long Open waits for another holder of the file; default 1s
	KeepDone      int           // how many done results are kept for Results; default 10,000
	// MinBackoff and MaxBackoff bound the wait between failed sends of a
	// batch on connections that redeemed fine (a failing dial or redeem is
	// paced by the Redeemer's own backoff); defaults 100ms and 10s.
	MinBackoff, MaxBackoff time.Duration
	// OnAck, if set, is called after each ack has been recorded, from the
	// flushing goroutine. It must not block or call the Outbox.
	OnAck func(batchID string, ack sharevat.Ack)
	// OnSend, if set, is called each time a batch of n ops is about to be
	// sent: again, with the same batchID, when it is resent after a
	// failure. It must not block or call the Outbox.
	OnSend func(batchID string, n int)
}

func (o *OutboxOptions) defaults() {
	if o.MaxBatchOps <= 0 {
		o.MaxBatchOps = DefaultMaxBatchOps
	}
	if o.MaxBatchBytes <= 0 {
		o.MaxBatchBytes = DefaultMaxBatchBytes
	}
	if o.MinBackoff <= 0 {
		o.MinBackoff = 100 * time.Millisecond
	}
	if o.MaxBackoff < o.MinBackoff {
		o.MaxBackoff = max(10*time.Second, o.MinBackoff)
	}
}

// Outbox is the durable outbox of docs/design.md §6: ops are written to a bbolt
// file before Enqueue returns, and Flush sends them in enqueue order, in
// batches with stable batch ids and seqs, until each is acked — applied or
// duplicate (done) or rejected (failed, never resent). On a transport
// error the batch stays pending and is resent, with the same ids, after
// the Redeemer reconnects and redeems. Opening the same file after a
// restart resumes where the last process stopped.
//
// One Outbox file serves one share: the first flush binds it to the
// share its Redeemer redeems to, and later flushes with a token of another
// share fail with EInvalid. The file never holds a token.
//
// Enqueue, Status and the lookups are safe for concurrent use; flushes run
// one at a time.
type Outbox struct {
	db   *outbox.DB
	opts OutboxOptions
	kick chan struct{} // a token when ops were enqueued since the last flush

	closeCtx context.Context // canceled by Close; bounds every flush
	closeFn  context.CancelFunc

	flushMu sync.Mutex // one flush at a time; held by Close to wait for it
	app     *Appender  // cached for appOf; guarded by flushMu
	appOf   *Share
	boundOf *Share // the last Share the outbox was bound with; guarded by flushMu
}

// OpenOutbox opens (creating if needed, mode 0600) the outbox file at
// path. If another Outbox — of this process or another — holds the file,
// it fails after opts.LockTimeout with sharevat.EUnavailable.
func OpenOutbox(path string, opts OutboxOptions) (*Outbox, error) {
	opts.defaults()
	db, err := outbox.Open(path, outbox.Options{LockTimeout: opts.LockTimeout, KeepDone: opts.KeepDone})
	if err != nil {
		return nil, err
	}
	o := &Outbox{db: db, opts: opts, kick: make(chan struct{}, 1)}
	o.closeCtx, o.closeFn = context.WithCancel(context.Background())
	return o, nil
}

// Path returns the outbox file's path.
func (o *Outbox) Path() string { return o.db.Path() }

// Enqueue stores ops durably, after every op already pending, and returns
// their op ids in order. Ops without an op id get a fresh random one
// ("op-" and 32 hex digits), stored with them, so a resend never turns
// into a second op. An op already pending with the same id and content is
// kept once. Errors: EInvalid or ETooLarge for an op that cannot be sent
// (nothing is stored), EConflict for an id already pending with other
// content, EUnavailable after Close.
func (o *Outbox) Enqueue(ctx context.Context, ops ...sharevat.Op) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ops = append([]sharevat.Op(nil), ops...)
	ids := make([]string, len(ops))
	for i := range ops {
		if ops[i].OpID == "" {
			ops[i].OpID = randomID("op-")
		}
		if err := o.checkSize(&ops[i]); err != nil {
			return nil, err
		}
		ids[i] = ops[i].OpID
	}
	if err := o.db.Enqueue(ops, time.Now()); err != nil {
		return nil, err
	}
	o.signal()
	return ids, nil
}

// checkSize refuses an op that no server could take: one bigger than
// sharevat.HardMaxBatchBytes. An op bigger than MaxBatchBytes is sent in
// a batch alone, or, when it is bigger than the server's own largest
// append too, rejected as the server would (undeliverable).
func (o *Outbox) checkSize(op *sharevat.Op) error {
	if n := op.Size(); n > sharevat.HardMaxBatchBytes {
		return sharevat.Errorf(sharevat.ETooLarge, "op %s is %d bytes; no sharevat server takes more than %d in one append", op.OpID, n, sharevat.HardMaxBatchBytes)
	}
	return nil
}

func (o *Outbox) signal() {
	select {
	case o.kick <- struct{}{}:
	default:
	}
}

// randomID returns prefix and 16 random bytes in hex.
func randomID(prefix string) string {
	var b [16]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Close stops any running Flush or Run (they return), waits for them, and
// closes the file. Later calls fail with EUnavailable.
func (o *Outbox) Close() error {
	o.closeFn()
	o.flushMu.Lock()
	defer o.flushMu.Unlock()
	o.releaseAppender()
	return o.db.Close()
}

// Flush sends every pending op, one batch at a time, and returns nil once
// nothing is pending (then it compacts the file if it is mostly free
// pages). A pending op whose record is damaged (it fails its checksum) is
// never sent: Flush sends the healthy ops around it, and Status counts it
// in Damaged. Each batch carries the epoch of the Share that r redeemed, and
// its ack is matched to its ops by op id: applied and duplicate ops are
// done, rejected ones failed (see Failed; a rejection does not make Flush
// fail).
//
// A transport error leaves the batch pending: Flush reports it to r
// (r.Fail), which reconnects and redeems again with backoff, and resends
// the same batch (same batch id, seqs and op ids), pausing with its own
// backoff when sends keep failing on fresh connections. Flush stops and
// returns the error at once when it is permanent (IsPermanent: revoked,
// unauthorized, permission denied, …), when ctx ends, when the Outbox is
// closed, or when the outbox file fails. The last error is kept in
// Status.LastError until an ack clears it — when ctx ends, the failure
// that kept the batch from being acked until then ("cannot reach …:
// connection refused; gave up at the deadline"), or "no answer from …
// before the deadline" when nothing failed; a cancellation with nothing
// failed records nothing.
func (o *Outbox) Flush(ctx context.Context, r *Redeemer) error {
	ctx, cancel := o.bound(ctx)
	defer cancel()
	o.flushMu.Lock()
	defer o.flushMu.Unlock()
	for {
		b, err := o.db.Next(o.opts.MaxBatchOps, o.opts.MaxBatchBytes, func() string { return randomID("batch-") })
		if err != nil {
			return err
		}
		if b == nil {
			o.compact()
			return nil
		}
		if err := ctx.Err(); err != nil {
			return o.stopped(ctx, r, nil, err)
		}
		if err := o.send(ctx, r, b); err != nil {
			return err
		}
	}
}

// compact shrinks the file once a flush has emptied it, if it is mostly
// free pages. It is only about disk space: a failure leaves the file as
// it was, in use, and the flush still succeeded.
func (o *Outbox) compact() {
	_, _ = o.db.Compact()
}

// bound returns ctx, also canceled by Close.
func (o *Outbox) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(o.closeCtx, cancel)
	return ctx, func() { stop(); cancel() }
}

// send sends b until it is acked, or a permanent error, ctx or a local
// failure stops it.
func (o *Outbox) send(ctx context.Context, r *Redeemer, b *sharevat.Batch) error {
	var sendErr error // b's last failed send on a connection that redeemed
	for failures := 0; ; failures++ {
		if err := o.pause(ctx, failures); err != nil {
			return o.stopped(ctx, r, sendErr, err)
		}
		sh, err := r.Share(ctx)
		if err != nil {
			return o.stopped(ctx, r, sendErr, err)
		}
		if err := o.bind(r, sh); err != nil {
			return o.stopped(ctx, r, sendErr, err)
		}
		if ack, ok := o.undeliverable(ctx, r, sh, b); ok {
			return o.acked(b.BatchID, ack)
		}
		ack, err := o.appendOn(ctx, r, sh, b)
		if err == nil {
			return o.acked(b.BatchID, ack)
		}
		if IsPermanent(err) || ctx.Err() != nil {
			return o.stopped(ctx, r, sendErr, err)
		}
		sendErr = err
		o.db.SetError(err.Error(), time.Now())
	}
}

// undeliverable answers for a batch the vat could never take: one op
// bigger than the vat's largest append does not fit in a message it
// reads, so it is not sent but rejected here, with the reason and
// message the vat's own checks give (apply.CheckOp under the limits it
// reports). A batch of more ops is never undeliverable: the outbox puts
// an op over its own batch size in a batch alone. A vat that does not
// report its limits gets the op sent as before.
func (o *Outbox) undeliverable(ctx context.Context, r *Redeemer, sh *Share, b *sharevat.Batch) (sharevat.Ack, bool) {
	if len(b.Ops) != 1 || b.Ops[0].Size() <= o.opts.MaxBatchBytes {
		return sharevat.Ack{}, false
	}
	lim, err := r.limits(ctx, sh)
	if err != nil || b.Ops[0].Size() <= lim.MaxBatchBytes {
		return sharevat.Ack{}, false
	}
	reason, msg := apply.CheckOp(&b.Ops[0], lim)
	if reason == sharevat.ReasonNone {
		return sharevat.Ack{}, false
	}
	ack := sharevat.Ack{Results: []sharevat.OpResult{{
		OpID: b.Ops[0].OpID, Status: sharevat.StatusRejected, Reason: reason,
		Message: msg + "; not sent: over the server's limits",
	}}}
	ack.Count()
	return ack, true
}

// bind ties the outbox to sh's share, once per Share.
func (o *Outbox) bind(r *Redeemer, sh *Share) error {
	if o.boundOf == sh {
		return nil
	}
	if err := o.db.Bind(sh.Info.ID, r.url); err != nil {
		return err
	}
	o.boundOf = sh
	return nil
}

// appendOn sends b once on sh; a failure is reported to the Redeemer.
func (o *Outbox) appendOn(ctx context.Context, r *Redeemer, sh *Share, b *sharevat.Batch) (sharevat.Ack, error) {
	app, err := o.appender(ctx, sh)
	if err == nil {
		b.Epoch = sh.Access.Epoch
		if o.opts.OnSend != nil {
			o.opts.OnSend(b.BatchID, len(b.Ops))
		}
		var ack sharevat.Ack
		if ack, err = app.Append(ctx, b); err == nil {
			return ack, nil
		}
	}
	r.Fail(sh, err)
	return sharevat.Ack{}, err
}

// appender returns an Appender of sh, cached while sh is the Redeemer's
// Share.
func (o *Outbox) appender(ctx context.Context, sh *Share) (*Appender, error) {
	if o.appOf == sh {
		return o.app, nil
	}
	o.releaseAppender()
	app, err := sh.Appender(ctx)
	if err != nil {
		return nil, err
	}
	o.app, o.appOf = app, sh
	return app, nil
}

func (o *Outbox) releaseAppender() {
	if o.app != nil {
		o.app.Release()
	}
	o.app, o.appOf = nil, nil
}

// acked records ack and tells OnAck.
func (o *Outbox) acked(batchID string, ack sharevat.Ack) error {
	if err := o.db.Ack(batchID, ack, time.Now()); err != nil {
		return err
	}
	if o.opts.OnAck != nil {
		o.opts.OnAck(batchID, ack)
	}
	return nil
}

// pause waits before the next send of a batch: not at all before the
// first two (the first retry follows a reconnect, which the Redeemer
// paces), then min·2^n, capped, jittered in its upper half.
func (o *Outbox) pause(ctx context.Context, failures int) error {
	if failures < 2 {
		return nil
	}
	return sleepJittered(ctx, backoff(o.opts.MinBackoff, o.opts.MaxBackoff, failures-2))
}

// Run flushes whenever ops are enqueued, until ctx ends or the Outbox is
// closed (then it returns nil), or a flush fails (then it returns that
// error: a permanent one, or a failure of the outbox file). It runs in the
// caller's goroutine and starts none that outlive it.
func (o *Outbox) Run(ctx context.Context, r *Redeemer) error {
	for {
		err := o.Flush(ctx, r)
		if ctx.Err() != nil || o.closeCtx.Err() != nil {
			return nil
		}
		if err != nil {
			return err
		}
		select {
		case <-o.kick:
		case <-ctx.Done():
			return nil
		case <-o.closeCtx.Done():
			return nil
		}
	}
}
