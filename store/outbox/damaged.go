package outbox

import (
	"encoding/json"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
)

// DamagedRecordError is one record (or ids entry) whose checksum does not
// match or whose content does not decode. Such a record is never sent:
// Next skips it, the listings leave it out, and Damaged lists it for
// DiscardDamaged to drop. Its text names the file, the record and the way
// out; errors.Is matches boltutil.ErrCorrupt and sharevat.ErrorCode gives
// ECorrupt.
type DamagedRecordError struct {
	Path  string // the outbox file
	State State  // the bucket it is in: pending, done or failed
	Index bool   // an entry of the op id index, not a record
	Seq   uint64 // its enqueue seq (the record's key), if known
	// OpID is the op id as far as it can be read from the damaged bytes:
	// it may itself be damaged, or "".
	OpID   string
	Detail string // what is wrong
}

func (e *DamagedRecordError) Error() string {
	what := fmt.Sprintf("a damaged %s record (enqueue seq %d", e.State, e.Seq)
	if e.Index {
		what = "a damaged op id index entry ("
	}
	if e.OpID != "" {
		what += fmt.Sprintf(", op id %q as stored", e.OpID)
	}
	return fmt.Sprintf("the outbox file %s holds %s): %s; it is never sent: "+
		"`sharevat outbox show` lists it and `sharevat outbox discard --damaged` drops it", e.Path, what, e.Detail)
}

// Unwrap makes the error boltutil.ErrCorrupt and ECorrupt.
func (e *DamagedRecordError) Unwrap() []error {
	return []error{boltutil.ErrCorrupt, sharevat.Errorf(sharevat.ECorrupt, "%s", e.Error())}
}

// damagedRecord describes the damaged value v at key k of state s's bucket.
func damagedRecord(s State, k, v []byte, detail string) *DamagedRecordError {
	e := &DamagedRecordError{State: s, Detail: detail, OpID: readableID(v)}
	if len(k) == 8 {
		e.Seq = seqOf(k)
	}
	return e
}

// readableID returns the op id in a damaged record's JSON, if it can be
// read at all.
func readableID(v []byte) string {
	var r struct {
		ID string `json:"id"`
	}
	for _, js := range [][]byte{v, v[min(4, len(v)):]} {
		if json.Unmarshal(js, &r) == nil && len(r.ID) <= 256 {
			return r.ID
		}
	}
	return ""
}

// Damaged lists the damaged records and ids entries, pending first, in
// key order. Errors: EUnavailable after Close.
func (db *DB) Damaged() ([]*DamagedRecordError, error) {
	var out []*DamagedRecordError
	err := db.view("damaged", func(tx *bbolt.Tx) (err error) {
		out, err = scanDamaged(tx)
		return err
	})
	for _, d := range out {
		d.Path = db.path
	}
	return out, err
}

// DiscardDamaged drops every damaged record, with the ids entries that
// point at it, and every damaged ids entry, and returns what it dropped.
// A dropped pending op is never sent; if its op id can be read, it may
// be enqueued again. Errors: EUnavailable after Close.
func (db *DB) DiscardDamaged() ([]*DamagedRecordError, error) {
	var out []*DamagedRecordError
	err := db.update("discard damaged", func(tx *bbolt.Tx) (err error) {
		if out, err = scanDamaged(tx); err != nil || len(out) == 0 {
			return err
		}
		return dropDamaged(tx, out)
	})
	if err != nil {
		return nil, err
	}
	for _, d := range out {
		d.Path = db.path
	}
	return out, nil
}

// scanDamaged checks every record and ids entry.
func scanDamaged(tx *bbolt.Tx) ([]*DamagedRecordError, error) {
	var out []*DamagedRecordError
	for _, s := range []State{StatePending, StateDone, StateFailed} {
		err := tx.Bucket(bucketOf(s)).ForEach(func(k, v []byte) error {
			if _, err := decodeRecord(s, k, v); err != nil {
				d, ok := err.(*DamagedRecordError)
				if !ok {
					return err
				}
				out = append(out, d)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	err := tx.Bucket(bucketIDs).ForEach(func(k, v []byte) error {
		if _, _, err := parseIDEntry(k, v); err != nil {
			out = append(out, &DamagedRecordError{Index: true, OpID: string(k), Detail: err.Error()})
		}
		return nil
	})
	return out, err
}

// dropDamaged deletes the damaged records and ids entries in ds, and the
// ids entries that point at a dropped record.
func dropDamaged(tx *bbolt.Tx, ds []*DamagedRecordError) error {
	type place struct {
		seq uint64
		s   State
	}
	gone := map[place]bool{}
	var badIDs [][]byte
	for _, d := range ds {
		if d.Index {
			badIDs = append(badIDs, []byte(d.OpID))
			continue
		}
		gone[place{d.Seq, d.State}] = true
		if err := tx.Bucket(bucketOf(d.State)).Delete(seqKey(d.Seq)); err != nil {
			return err
		}
	}
	ids := tx.Bucket(bucketIDs)
	err := ids.ForEach(func(k, v []byte) error {
		if seq, s, err := parseIDEntry(k, v); err == nil && gone[place{seq, s}] {
			badIDs = append(badIDs, append([]byte(nil), k...))
		}
		return nil
	})
	for i := 0; err == nil && i < len(badIDs); i++ {
		err = ids.Delete(badIDs[i])
	}
	return err
}
