package bolt

import (
	"time"

	bbolt "go.etcd.io/bbolt"

	"sharevat"
	"sharevat/store/internal/boltutil"
)

// walCommitGroup decides every call of group against the true current
// state (a data-file read transaction under the overlay and the stage),
// writes the applied ops of the group to the write-ahead log as one
// record per call with one write and one fdatasync, and only then
// publishes them to the overlay, where reads see them. A call whose
// decision fails (a damaged record) fails alone; a failed log write
// fails the whole group, since a call may have been answered from what
// an earlier call staged.
func (db *DB) walCommitGroup(group []*appendCall) {
	w := db.wal
	if err := w.admit(); err != nil {
		setGroupErr(group, err)
		return
	}
	w.order.Lock()
	defer w.order.Unlock()
	start := time.Now()
	var recs []*walRecord
	err := boltutil.View(db.bdb, func(tx *bbolt.Tx) error {
		st := stage{}
		for _, call := range group {
			if rec := db.decideCall(tx, st, call); rec != nil {
				recs = append(recs, rec)
			}
		}
		return nil
	})
	if err == nil && len(recs) > 0 {
		err = w.writeRecords(recs)
	}
	if err != nil {
		setGroupErr(group, err)
		return
	}
	if db.opts.OnCommit != nil {
		db.opts.OnCommit(len(group), groupOps(group), time.Since(start))
	}
}

// decideCall runs one call's append engine in tx and returns the record
// of what it applied (nil if nothing). A panic (a damaged page) is the
// call's error.
func (db *DB) decideCall(tx *bbolt.Tx, st stage, call *appendCall) (rec *walRecord) {
	call.err = boltutil.Guard(func() error {
		var err error
		call.ack, rec, err = db.decide(tx, st, call)
		return err
	})
	if call.err != nil {
		call.ack, rec = sharevat.Ack{}, nil
	}
	return rec
}

// decide is applyAppend over a walView.
func (db *DB) decide(tx *bbolt.Tx, st stage, call *appendCall) (sharevat.Ack, *walRecord, error) {
	s, err := db.wal.share(tx, call.req.Share)
	if err != nil {
		return sharevat.Ack{}, nil, err
	}
	v, err := openWALView(tx, &s, db.wal.ov.tails[s.ID], st, len(call.req.Batch.Ops))
	if err != nil {
		return sharevat.Ack{}, nil, err
	}
	ok := false
	defer func() {
		if !ok {
			v.undo()
		}
	}()
	ack, err := call.prep.Apply(v, call.req.Now)
	if err != nil {
		return ack, nil, err
	}
	ok = true
	if len(v.put) == 0 {
		return ack, nil, nil
	}
	return ack, &walRecord{share: s.ID, now: call.req.Now, entries: v.put}, nil
}

// writeRecords appends recs to the log (one write, one fdatasync),
// numbers them, and publishes them to the overlay.
func (w *walState) writeRecords(recs []*walRecord) error {
	data := make([][]byte, len(recs))
	for i, r := range recs {
		data[i] = r.encode()
	}
	first, err := w.log.Append(data...)
	if err != nil {
		return err
	}
	for i, r := range recs {
		r.lsn = first + uint64(i)
	}
	w.ov.publish(recs)
	w.kickIfDue()
	return nil
}

// share is the live share id as the decider needs it: its record comes
// from the cache (decoding it was most of the serial section's time,
// measured), its head from the data file's log. Only exclusive writes
// change what the decider reads of a record (epoch, earliest, deleted),
// and they empty the cache. The caller holds the order lock.
func (w *walState) share(tx *bbolt.Tx, id sharevat.ShareID) (sharevat.Share, error) {
	s, ok := w.shares[id]
	if !ok {
		var err error
		if s, err = liveShare(tx, id); err != nil {
			return s, err
		}
		w.shares[id] = s
	}
	s.Head = max(logHead(tx, id), s.Earliest-1)
	return s, nil
}
