package bolt

import (
	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
	"github.com/sharevat/sharevat/store/internal/commit"
)

// decideCall runs one call's append engine in tx and returns the record
// of what it applied (nil if nothing). A panic (a damaged page) is the
// call's error.
func (db *DB) decideCall(tx *bbolt.Tx, st stage, call *commit.Call) (rec *walRecord) {
	call.Err = boltutil.Guard(func() error {
		var err error
		call.Ack, rec, err = db.decide(tx, st, call)
		return err
	})
	if call.Err != nil {
		call.Ack, rec = sharevat.Ack{}, nil
	}
	return rec
}

// decide is applyAppend over a walView.
func (db *DB) decide(tx *bbolt.Tx, st stage, call *commit.Call) (sharevat.Ack, *walRecord, error) {
	s, err := db.wal.share(tx, call.Req.Share)
	if err != nil {
		return sharevat.Ack{}, nil, err
	}
	v, err := openWALView(tx, &s, db.wal.ov.tails[s.ID], st, len(call.Req.Batch.Ops))
	if err != nil {
		return sharevat.Ack{}, nil, err
	}
	ok := false
	defer func() {
		if !ok {
			v.undo()
		}
	}()
	ack, err := call.Prep.Apply(v, call.Req.Now)
	if err != nil {
		return ack, nil, err
	}
	ok = true
	if len(v.put) == 0 {
		return ack, nil, nil
	}
	return ack, &walRecord{share: s.ID, now: call.Req.Now, entries: v.put}, nil
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
