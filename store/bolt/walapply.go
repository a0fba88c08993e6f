package bolt

import (
	"context"
	"encoding/binary"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
	"github.com/sharevat/sharevat/store/internal/core"
)

// kickIfDue wakes the applier when enough log is pending.
func (w *walState) kickIfDue() {
	if _, bytes := w.ov.size(); bytes >= w.applyBytes {
		w.kickNow()
	}
}

// applyLoop applies the log to the data file in the background: when
// kicked, and every applyEvery while anything is pending. A failure (a
// full disk) is logged and retried on the next tick; the log keeps
// every record until then.
func (db *DB) applyLoop() {
	w := db.wal
	defer close(w.done)
	tick := time.NewTicker(w.applyEvery)
	defer tick.Stop()
	for {
		select {
		case <-w.stop:
			return
		case <-w.kick:
		case <-tick.C:
		}
		for n, _ := w.ov.size(); n > 0; n, _ = w.ov.size() {
			err := db.applyOnce()
			w.notice.ended(err)
			if err != nil {
				w.logger("store: applying the write-ahead log to the data file failed; retrying", "err", err)
				break
			}
			select {
			case <-w.stop:
				return
			default:
			}
		}
	}
}

// applyOnce applies one batch of pending records, then trims the
// overlay (under the order lock) and releases the log's segments.
func (db *DB) applyOnce() error {
	w := db.wal
	w.applyMu.Lock()
	fault := w.applyFault
	w.applyMu.Unlock()
	if fault != nil {
		if err := fault(); err != nil {
			return err
		}
	}
	last, err := db.applyRecords(w.ov.pending(maxApplyBytes))
	if err != nil {
		return err
	}
	w.order.Lock()
	w.ov.trim(last)
	w.order.Unlock()
	return w.log.Release(last)
}

// flushLocked applies every pending record; the caller holds the order
// lock, so none is added meanwhile.
func (db *DB) flushLocked() error {
	w := db.wal
	for n, _ := w.ov.size(); n > 0; n, _ = w.ov.size() {
		last, err := db.applyRecords(w.ov.pending(maxApplyBytes))
		if err != nil {
			return err
		}
		w.ov.trim(last)
		if err := w.log.Release(last); err != nil {
			return err
		}
	}
	return nil
}

// applyRecords applies recs (those past the checkpoint) to the data
// file in one transaction that also moves the checkpoint, and returns
// the checkpoint.
func (db *DB) applyRecords(recs []*walRecord) (last uint64, err error) {
	w := db.wal
	w.applyMu.Lock()
	defer w.applyMu.Unlock()
	err = boltutil.Update(db.bdb, func(tx *bbolt.Tx) error {
		last = readCheckpoint(tx)
		cp := last
		shares := map[sharevat.ShareID]*appliedShare{}
		for _, r := range recs {
			if r.lsn <= cp {
				continue
			}
			if err := applyRecord(tx, shares, r); err != nil {
				return err
			}
			last = r.lsn
		}
		if last == cp {
			return nil
		}
		for _, a := range shares {
			a.s.Head = a.view.head
			if err := touchShare(tx, &a.s, a.now); err != nil {
				return err
			}
		}
		return tx.Bucket(bucketMeta).Put(keyCheckpoint, binary.BigEndian.AppendUint64(nil, last))
	})
	return last, err
}

// appliedShare is one share in a transaction of the applier: its
// record and log view, opened once, and the latest append time.
type appliedShare struct {
	s    sharevat.Share
	view *logView
	now  time.Time
}

// applyRecord puts r's entries in its share's log, op-id index and
// state: what Append did before the log. The share's update time moves
// once per transaction (applyRecords).
func applyRecord(tx *bbolt.Tx, shares map[sharevat.ShareID]*appliedShare, r *walRecord) error {
	a := shares[r.share]
	if a == nil {
		s, err := liveShare(tx, r.share)
		if err != nil {
			return corruptf("wal record %d: share %q: %v", r.lsn, r.share, err)
		}
		view, err := openLogView(tx, &s)
		if err != nil {
			return err
		}
		a = &appliedShare{s: s, view: view}
		shares[r.share] = a
	}
	for i := range r.entries {
		if err := a.view.Put(&r.entries[i]); err != nil {
			return core.BadRecord(r.share, r.entries[i].Cursor, err)
		}
	}
	if r.now.After(a.now) {
		a.now = r.now
	}
	return nil
}

// exclusive runs fn with appends held off and the whole log applied to
// the data file first: for the writes (and listings) that must see, or
// be ordered after, every acknowledged append of the data file itself.
func (db *DB) exclusive(ctx context.Context, op string, fn func() error) error {
	w := db.wal
	if w == nil {
		return fn()
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	w.order.Lock()
	defer w.order.Unlock()
	if err := w.drain(); err != nil {
		return db.wrap(op, err)
	}
	if err := db.flushLocked(); err != nil {
		return db.wrap(op, err)
	}
	defer clear(w.shares) // fn may change an epoch, a deletion, a compaction
	return fn()
}

// Flush applies the whole write-ahead log to the data file now (a
// no-op without one).
func (db *DB) Flush(ctx context.Context) error {
	return db.exclusive(ctx, "flush", func() error { return nil })
}

// updateFlushed is update run exclusive: after the whole log is in the
// data file, with appends held off until it commits.
func (db *DB) updateFlushed(ctx context.Context, op string, fn func(*bbolt.Tx) error) error {
	return db.exclusive(ctx, op, func() error { return db.update(ctx, op, fn) })
}

// viewFlushed is view run exclusive.
func (db *DB) viewFlushed(ctx context.Context, op string, fn func(*bbolt.Tx) error) error {
	return db.exclusive(ctx, op, func() error { return db.view(ctx, op, fn) })
}
