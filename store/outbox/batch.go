package outbox

import (
	"encoding/binary"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// Next returns the batch to send: the batch already assigned and still
// pending, if any, exactly as it was assigned; else a new batch with id
// newID() of the pending ops at the front of the queue — at most maxOps
// ops and maxBytes bytes (at least one op) — assigned durably before Next
// returns. It returns nil when nothing is pending. The batch's Epoch is
// left for the caller to set. Errors: EUnavailable after Close.
func (db *DB) Next(maxOps, maxBytes int, newID func() string) (*sharevat.Batch, error) {
	var recs []*record
	var pending bool
	err := db.view("next", func(tx *bbolt.Tx) (err error) {
		recs, pending, err = assigned(tx)
		return err
	})
	if err != nil || len(recs) > 0 || !pending {
		return toBatch(recs), err
	}
	err = db.update("assign", func(tx *bbolt.Tx) (err error) {
		recs, err = assign(tx, max(maxOps, 1), maxBytes, newID())
		return err
	})
	return toBatch(recs), err
}

// assigned returns the assigned batch at the front of the queue (nil if
// the front op is unassigned) and whether anything is pending.
func assigned(tx *bbolt.Tx) ([]*record, bool, error) {
	var recs []*record
	c := tx.Bucket(bucketPending).Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		r, err := decodeRecord(StatePending, k, v)
		if isDamaged(err) {
			continue // never sent; Damaged lists it
		}
		if err != nil {
			return nil, true, err
		}
		if r.BatchID == "" || len(recs) > 0 && r.BatchID != recs[0].BatchID {
			return recs, true, nil
		}
		recs = append(recs, r)
	}
	return recs, len(recs) > 0, nil
}

// assign gives the front pending ops batch id id, unless a batch is
// already assigned (then it returns that one).
func assign(tx *bbolt.Tx, maxOps, maxBytes int, id string) ([]*record, error) {
	recs, _, err := assigned(tx)
	if err != nil || len(recs) > 0 {
		return recs, err
	}
	recs, err = front(tx, maxOps, maxBytes)
	for i, r := range recs {
		r.BatchID, r.BatchSeq = id, uint32(i)
		if err == nil {
			err = putRecord(tx, r, StatePending)
		}
	}
	return recs, err
}

// front reads the pending ops that fit in one batch.
func front(tx *bbolt.Tx, maxOps, maxBytes int) ([]*record, error) {
	var recs []*record
	bytes := 0
	c := tx.Bucket(bucketPending).Cursor()
	for k, v := c.First(); k != nil && len(recs) < maxOps; k, v = c.Next() {
		r, err := decodeRecord(StatePending, k, v)
		if isDamaged(err) {
			continue // never sent; Damaged lists it
		}
		if err != nil {
			return nil, err
		}
		if bytes += r.size(); len(recs) > 0 && bytes > maxBytes {
			break
		}
		recs = append(recs, r)
	}
	return recs, nil
}

func toBatch(recs []*record) *sharevat.Batch {
	if len(recs) == 0 {
		return nil
	}
	b := &sharevat.Batch{BatchID: recs[0].BatchID, Ops: make([]sharevat.Op, len(recs))}
	for i, r := range recs {
		b.Ops[i] = r.op()
	}
	return b
}

// Ack records the server's answer to the pending batch batchID: each op,
// matched to its result by op id, moves to done (applied, duplicate) or
// failed (rejected). It also records ack.Head as the last acked cursor
// and clears the last error. Errors: EConflict when batchID is not the
// pending batch (already acked); a wrapped error, changing nothing, when
// the ack does not answer exactly the batch's ops.
func (db *DB) Ack(batchID string, ack sharevat.Ack, now time.Time) error {
	return db.update("ack", func(tx *bbolt.Tx) error {
		recs, _, err := assigned(tx)
		if err != nil {
			return err
		}
		if len(recs) == 0 || recs[0].BatchID != batchID {
			return sharevat.Errorf(sharevat.EConflict, "batch %s is not pending", batchID)
		}
		results, err := match(batchID, recs, ack.Results)
		for i := 0; err == nil && i < len(recs); i++ {
			err = finish(tx, recs[i], results[i], now)
		}
		if err == nil {
			err = recordAck(tx, ack.Head)
		}
		if err == nil {
			err = prune(tx, db.keepDone)
		}
		return err
	})
}

// match returns the result for each record, by op id.
func match(batchID string, recs []*record, results []sharevat.OpResult) ([]sharevat.OpResult, error) {
	if len(results) != len(recs) {
		return nil, fmt.Errorf("ack for batch %s has %d results for %d ops", batchID, len(results), len(recs))
	}
	byID := make(map[string]sharevat.OpResult, len(results))
	for _, res := range results {
		byID[res.OpID] = res
	}
	out := make([]sharevat.OpResult, len(recs))
	for i, r := range recs {
		res, ok := byID[r.OpID]
		if !ok {
			return nil, fmt.Errorf("ack for batch %s has no result for op %s", batchID, r.OpID)
		}
		out[i] = res
	}
	return out, nil
}

// finish moves a pending record to done or failed with its result.
func finish(tx *bbolt.Tx, r *record, res sharevat.OpResult, now time.Time) error {
	if err := tx.Bucket(bucketPending).Delete(seqKey(r.seq)); err != nil {
		return err
	}
	r.Status, r.Cursor, r.Reason, r.Message, r.AckedAt = res.Status, res.Cursor, res.Reason, res.Message, now.UTC()
	if res.Status == sharevat.StatusRejected {
		return putRecord(tx, r, StateFailed)
	}
	r.Body, r.DependsOn = nil, nil // a done op is only looked up: its result is what counts
	return putRecord(tx, r, StateDone)
}

// recordAck keeps the highest head seen and clears the last error.
func recordAck(tx *bbolt.Tx, head sharevat.Cursor) error {
	meta := tx.Bucket(bucketMeta)
	if head > readHead(meta) {
		if err := meta.Put(keyHead, seqKey(uint64(head))); err != nil {
			return err
		}
	}
	return meta.Delete(keyError)
}

func readHead(meta *bbolt.Bucket) sharevat.Cursor {
	if v := meta.Get(keyHead); len(v) == 8 {
		return sharevat.Cursor(binary.BigEndian.Uint64(v))
	}
	return 0
}

// prune drops the oldest done records beyond keep, with their ids. It
// walks back from the newest: counting pages (Stats) would miss this
// transaction's own writes.
func prune(tx *bbolt.Tx, keep int) error {
	c := tx.Bucket(bucketDone).Cursor()
	k, v := c.Last()
	for i := 0; i < keep && k != nil; i++ {
		k, v = c.Prev()
	}
	var drop []*record
	var damaged [][]byte // old done results whose record is damaged: they go too
	for ; k != nil; k, v = c.Prev() {
		r, err := decodeRecord(StateDone, k, v)
		switch {
		case isDamaged(err):
			damaged = append(damaged, append([]byte(nil), k...))
		case err != nil:
			return err
		default:
			drop = append(drop, r)
		}
	}
	for _, r := range drop {
		if err := dropRecord(tx, r, StateDone); err != nil {
			return err
		}
	}
	for _, k := range damaged {
		if err := tx.Bucket(bucketDone).Delete(k); err != nil {
			return err
		}
	}
	return nil
}

func dropRecord(tx *bbolt.Tx, r *record, s State) error {
	if err := tx.Bucket(bucketOf(s)).Delete(seqKey(r.seq)); err != nil {
		return err
	}
	ids := tx.Bucket(bucketIDs)
	if seq, st, err := parseIDEntry([]byte(r.OpID), ids.Get([]byte(r.OpID))); err == nil && seq == r.seq && st == s {
		return ids.Delete([]byte(r.OpID))
	}
	return nil
}
