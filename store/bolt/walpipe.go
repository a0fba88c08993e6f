package bolt

import (
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat/store/internal/boltutil"
	"github.com/sharevat/sharevat/store/internal/commit"
)

// The append path with the write-ahead log is a pipeline of two steps,
// each serial: decide (run the append engine for a group against the
// data file, the overlay and the ops of earlier groups not yet durable,
// then write the group's records: walDecide, under the order lock) and
// sync (one fdatasync for every record written so far, then publish
// them to the overlay and acknowledge: walState.durable, under pubMu).
// Group N+1 is decided while group N's fdatasync runs, so a group costs
// the longer of the two steps, not their sum. Nothing is acknowledged
// or published before it is durable; a group that wrote nothing (all
// duplicates) still waits for the groups before it, since its answers
// may rest on their ops. A failed fdatasync fails every group after it
// (the log refuses everything until the vat restarts).

// flight is one group's records, written to the log and perhaps not yet
// durable.
type flight struct {
	recs []*walRecord
	last uint64 // the LSN of its last record
}

// walDecide is a group's first step: it decides every call and writes
// the group's records, and returns the LSN the group's answers wait for
// (0 and ok false if the group failed: its calls have their errors).
func (db *DB) walDecide(group []*commit.Call) (upTo uint64, ok bool) {
	w := db.wal
	if err := w.admit(); err != nil {
		commit.SetErr(group, err)
		return 0, false
	}
	w.order.Lock()
	defer w.order.Unlock()
	w.pruneStage()
	var recs []*walRecord
	err := boltutil.View(db.bdb, func(tx *bbolt.Tx) error {
		for _, call := range group {
			if rec := db.decideLocked(tx, call); rec != nil {
				recs = append(recs, rec)
			}
		}
		return nil
	})
	if err == nil && len(recs) > 0 {
		err = w.writeRecords(recs)
	}
	if err != nil {
		w.unstage(recs)
		commit.SetErr(group, err)
		return 0, false
	}
	return w.log.Next() - 1, true
}

// decideLocked is decideCall with the overlay's read lock held, so that
// a concurrent publish (of an earlier group) does not change a tail
// while the call reads it.
func (db *DB) decideLocked(tx *bbolt.Tx, call *commit.Call) *walRecord {
	db.wal.ov.mu.RLock()
	defer db.wal.ov.mu.RUnlock()
	return db.decideCall(tx, db.wal.stage, call)
}

// walFinish is a group's second step: it waits until every record up to
// upTo is durable and published, then the group's answers stand.
func (db *DB) walFinish(group []*commit.Call, upTo uint64, start time.Time) {
	if err := db.wal.durable(upTo); err != nil {
		commit.SetErr(group, err)
		return
	}
	if db.opts.OnCommit != nil {
		db.opts.OnCommit(len(group), commit.Ops(group), time.Since(start))
	}
}

// writeRecords writes recs to the log (one write, not yet synced),
// numbers them, and queues them for publishing. The caller holds the
// order lock.
func (w *walState) writeRecords(recs []*walRecord) error {
	data := make([][]byte, len(recs))
	for i, r := range recs {
		data[i] = r.encode()
	}
	first, err := w.log.Write(data...)
	if err != nil {
		return err
	}
	for i, r := range recs {
		r.lsn = first + uint64(i)
	}
	f := &flight{recs: recs, last: recs[len(recs)-1].lsn}
	w.staged = append(w.staged, f)
	w.pubMu.Lock()
	w.unpub = append(w.unpub, f)
	w.pubMu.Unlock()
	return nil
}

// durable makes every record up to upTo durable (one fdatasync covers
// every record written so far) and publishes them, in LSN order.
func (w *walState) durable(upTo uint64) error {
	if w.published.Load() >= upTo {
		return nil
	}
	w.pubMu.Lock()
	defer w.pubMu.Unlock()
	if w.published.Load() >= upTo {
		return nil
	}
	if w.pubErr != nil {
		return w.pubErr
	}
	synced, err := w.log.Sync()
	if err != nil {
		w.pubErr, w.unpub = err, nil
		return err
	}
	// A group written just now may be synced but not queued yet: what
	// is published is what was queued, never merely synced.
	n := 0
	var recs []*walRecord
	for n < len(w.unpub) && w.unpub[n].last <= synced {
		recs = append(recs, w.unpub[n].recs...)
		n++
	}
	if n > 0 {
		last := w.unpub[n-1].last
		w.unpub = w.unpub[n:]
		w.ov.publish(recs)
		w.published.Store(last)
		w.kickIfDue()
	}
	if w.published.Load() < upTo {
		return fmt.Errorf("bolt: write-ahead log: LSN %d was synced but not queued", upTo) // a bug
	}
	return nil
}

// drain makes every record written durable and published, and empties
// the stage. The caller holds the order lock, so none is written
// meanwhile.
func (w *walState) drain() error {
	if err := w.durable(w.log.Next() - 1); err != nil {
		return err
	}
	w.pruneStage()
	return nil
}

// pruneStage takes the ops of published groups out of the stage: the
// overlay has them now, and trimming it waits for the order lock, which
// the caller holds.
func (w *walState) pruneStage() {
	pub := w.published.Load()
	n := 0
	for n < len(w.staged) && w.staged[n].last <= pub {
		for _, r := range w.staged[n].recs {
			w.stage.forget(r)
		}
		n++
	}
	w.staged = w.staged[n:]
	if len(w.staged) == 0 {
		clear(w.stage) // also the parts calls left empty (duplicates only)
	}
}

// unstage takes the ops of recs, a group whose write failed, out of the
// stage. It is the newest group, so the stage's heads go back to before
// it.
func (w *walState) unstage(recs []*walRecord) {
	for _, r := range recs {
		if ss := w.stage[r.share]; ss != nil && len(r.entries) > 0 {
			ss.head = min(ss.head, r.entries[0].Cursor-1)
		}
		w.stage.forget(r)
	}
}

// forget removes r's entries from the stage, and a share's part once it
// holds none.
func (st stage) forget(r *walRecord) {
	ss := st[r.share]
	if ss == nil {
		return
	}
	for i := range r.entries {
		e := &r.entries[i]
		if ss.ops[e.OpID] == e {
			delete(ss.ops, e.OpID)
		}
	}
	if len(ss.ops) == 0 {
		delete(st, r.share)
	}
}
