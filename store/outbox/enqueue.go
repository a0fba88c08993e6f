package outbox

import (
	"errors"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// Enqueue stores ops as pending, after every op already pending, in one
// durable transaction: all of them or none. Every op needs its op id.
//
// An op whose id is already pending with the same content (kind, key,
// body, delete) is not stored twice; with different content the whole
// call fails with EConflict. An op id that is done or failed is enqueued
// again (its old result is dropped): the server will answer for it.
// Errors: EInvalid for an empty op id; EConflict; EUnavailable after
// Close.
func (db *DB) Enqueue(ops []sharevat.Op, now time.Time) error {
	for i := range ops {
		if ops[i].OpID == "" {
			return sharevat.Errorf(sharevat.EInvalid, "op %d has no op id", i)
		}
	}
	return db.update("enqueue", func(tx *bbolt.Tx) error {
		for i := range ops {
			if err := enqueueOne(tx, &ops[i], now); err != nil {
				return err
			}
		}
		return nil
	})
}

func enqueueOne(tx *bbolt.Tx, op *sharevat.Op, now time.Time) error {
	fresh, err := forgetFinished(tx, op)
	if err != nil || !fresh {
		return err
	}
	seq, err := tx.Bucket(bucketMeta).NextSequence()
	if err != nil {
		return err
	}
	return putRecord(tx, newRecord(op, seq, now), StatePending)
}

// forgetFinished looks op's id up: it reports false for an id pending with
// the same content, fails for one pending with other content, and drops
// the old result of a done or failed one.
func forgetFinished(tx *bbolt.Tx, op *sharevat.Op) (bool, error) {
	v := tx.Bucket(bucketIDs).Get([]byte(op.OpID))
	if v == nil {
		return true, nil
	}
	seq, state, err := parseIDEntry([]byte(op.OpID), v)
	if err != nil {
		return false, &DamagedRecordError{Index: true, OpID: op.OpID, Detail: err.Error()}
	}
	if state != StatePending {
		return true, tx.Bucket(bucketOf(state)).Delete(seqKey(seq))
	}
	r, err := getRecord(tx, seq, StatePending)
	if err != nil {
		return false, err
	}
	if old := r.op(); apply.Digest(&old) != apply.Digest(op) {
		return false, sharevat.Errorf(sharevat.EConflict, "op id %q is already pending with different content", op.OpID)
	}
	return false, nil
}

// putRecord writes r into the bucket of state s and points its id there.
func putRecord(tx *bbolt.Tx, r *record, s State) error {
	v, err := r.encode()
	if err != nil {
		return err
	}
	if err := tx.Bucket(bucketOf(s)).Put(seqKey(r.seq), v); err != nil {
		return err
	}
	return tx.Bucket(bucketIDs).Put([]byte(r.OpID), idEntry(r.OpID, r.seq, s))
}

// getRecord reads the record seq of state s: an error if it is missing, a
// *DamagedRecordError if it is damaged.
func getRecord(tx *bbolt.Tx, seq uint64, s State) (*record, error) {
	k := seqKey(seq)
	v := tx.Bucket(bucketOf(s)).Get(k)
	if v == nil {
		return nil, fmt.Errorf("index points at missing %s record %d", s, seq)
	}
	return decodeRecord(s, k, v)
}

// isDamaged reports whether err is a *DamagedRecordError.
func isDamaged(err error) bool {
	var d *DamagedRecordError
	return errors.As(err, &d)
}
