package vat

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
)

// auditLinger is how long the writer lets records that nobody waits for
// (redeems) gather before writing them, so a stream of redeems costs a
// few writes a second rather than one fsync per redeem. A record someone
// waits for cuts the wait short.
const auditLinger = 10 * time.Millisecond

// maxAuditQueue bounds the records waiting to be written; past it, adders
// wait for the write, so a slow disk slows redeems rather than growing
// memory.
const maxAuditQueue = 65536

// auditWriter writes audit records in batches: every record that arrives
// while a write is in progress (or, for redeems, within auditLinger)
// goes into the next single transaction.
// There is no goroutine while idle: the first record to find no write
// running starts one, which drains the queue and exits. Redeems do not
// wait for their record (a crash can lose the last few milliseconds of
// redeem records); mints, revocations and bumps do.
type auditWriter struct {
	store sharevat.AuditStore
	log   *slog.Logger

	mu      sync.Mutex
	queue   []sharevat.AuditRecord
	waiters []chan struct{}
	running bool
	wg      sync.WaitGroup
	urgent  chan struct{} // a waiting record arrived: stop lingering
}

// add queues rec; with wait it returns once rec is written (or failed to
// be, which is logged).
func (w *auditWriter) add(rec sharevat.AuditRecord, wait bool) {
	w.mu.Lock()
	w.queue = append(w.queue, rec)
	var written chan struct{}
	if wait || len(w.queue) > maxAuditQueue {
		written = make(chan struct{})
		w.waiters = append(w.waiters, written)
		w.hurry()
	}
	if !w.running {
		w.running = true
		w.wg.Add(1)
		go w.drain()
	}
	w.mu.Unlock()
	if written != nil {
		<-written
	}
}

// hurry ends a linger in progress; callers hold mu.
func (w *auditWriter) hurry() {
	select {
	case w.urgent <- struct{}{}:
	default:
	}
}

// drain writes batches until the queue is empty, lingering before a
// batch nobody waits for.
func (w *auditWriter) drain() {
	defer w.wg.Done()
	for {
		w.linger()
		w.mu.Lock()
		recs, waiters := w.queue, w.waiters
		w.queue, w.waiters = nil, nil
		if len(recs) == 0 && len(waiters) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
		w.write(recs)
		for _, c := range waiters {
			close(c)
		}
	}
}

// linger waits up to auditLinger unless someone waits for a record.
func (w *auditWriter) linger() {
	w.mu.Lock()
	urgent := len(w.waiters) > 0
	w.mu.Unlock()
	if urgent {
		return
	}
	t := time.NewTimer(auditLinger)
	defer t.Stop()
	select {
	case <-t.C:
	case <-w.urgent:
	}
}

// write stores one batch of records; a failure is logged.
func (w *auditWriter) write(recs []sharevat.AuditRecord) {
	if len(recs) == 0 {
		return
	}
	if err := w.store.Audit(context.Background(), recs...); err != nil {
		w.log.Error("audit write failed", "records", len(recs), "err", err)
	}
}

// sync returns once every record queued before it was written.
func (w *auditWriter) sync() {
	w.mu.Lock()
	if !w.running {
		w.mu.Unlock()
		return
	}
	written := make(chan struct{})
	w.waiters = append(w.waiters, written)
	w.hurry()
	w.mu.Unlock()
	<-written
}

// close waits for queued records to be written, or for ctx.
func (w *auditWriter) close(ctx context.Context) error {
	return waitCtx(ctx, &w.wg)
}
