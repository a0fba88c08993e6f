package outbox

import (
	"encoding/json"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// Status is a summary of the outbox.
type Status struct {
	Pending, Done, Failed int
	// Damaged counts the records that fail their checksum (Damaged lists
	// them); they are not in Pending, Done or Failed, and never sent.
	Damaged int
	// LastAckedCursor is the highest share head reported by an ack.
	LastAckedCursor sharevat.Cursor
	// LastError is the last flush error, cleared by the next ack.
	LastError   string
	LastErrorAt time.Time
	ShareID     sharevat.ShareID // the share the outbox is bound to; "" until known
	Server      string           // the URL last flushed to
}

// Result is where one op is and, once acked, what the server answered.
type Result struct {
	OpID    string
	State   State
	BatchID string            // once assigned
	Status  sharevat.OpStatus // done: applied or duplicate; failed: rejected
	Cursor  sharevat.Cursor   // done: where the op is in the log
	Reason  sharevat.Reason   // failed
	Message string            // failed
	AckedAt time.Time
}

func (r *record) result(s State) Result {
	return Result{OpID: r.OpID, State: s, BatchID: r.BatchID, Status: r.Status,
		Cursor: r.Cursor, Reason: r.Reason, Message: r.Message, AckedAt: r.AckedAt}
}

// lastError is the JSON value of meta "error".
type lastError struct {
	Msg string    `json:"msg"`
	At  time.Time `json:"at"`
}

// Status summarises the outbox. Errors: EUnavailable after Close.
func (db *DB) Status() (Status, error) {
	var st Status
	err := db.view("status", func(tx *bbolt.Tx) error {
		counts := [3]int{}
		for _, s := range []State{StatePending, StateDone, StateFailed} {
			err := tx.Bucket(bucketOf(s)).ForEach(func(k, v []byte) error {
				if _, ok := unseal(k, v); ok && len(k) == 8 {
					counts[s]++
				} else {
					st.Damaged++
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		st.Pending, st.Done, st.Failed = counts[StatePending], counts[StateDone], counts[StateFailed]
		meta := tx.Bucket(bucketMeta)
		st.LastAckedCursor = readHead(meta)
		st.ShareID = sharevat.ShareID(meta.Get(keyShare))
		st.Server = string(meta.Get(keyServer))
		var le lastError
		if v := meta.Get(keyError); v != nil && json.Unmarshal(v, &le) == nil {
			st.LastError, st.LastErrorAt = le.Msg, le.At
		}
		return nil
	})
	return st, err
}

// Failed lists the failed (rejected) ops in enqueue order.
func (db *DB) Failed() ([]Result, error) {
	return db.list("failed", StateFailed)
}

// Pending lists the pending ops in enqueue order.
func (db *DB) Pending() ([]Result, error) {
	return db.list("pending", StatePending)
}

func (db *DB) list(op string, s State) ([]Result, error) {
	var out []Result
	err := db.view(op, func(tx *bbolt.Tx) error {
		recs, err := records(tx, s)
		for _, r := range recs {
			out = append(out, r.result(s))
		}
		return err
	})
	return out, err
}

// Results looks up ops by id, in the order given; an id the outbox does
// not hold is StateUnknown.
func (db *DB) Results(ids []string) ([]Result, error) {
	out := make([]Result, len(ids))
	err := db.view("results", func(tx *bbolt.Tx) error {
		for i, id := range ids {
			r, err := lookup(tx, id)
			if err != nil {
				return err
			}
			out[i] = r
		}
		return nil
	})
	return out, err
}

func lookup(tx *bbolt.Tx, id string) (Result, error) {
	v := tx.Bucket(bucketIDs).Get([]byte(id))
	if v == nil {
		return Result{OpID: id, State: StateUnknown}, nil
	}
	seq, s, err := parseIDEntry([]byte(id), v)
	if err != nil {
		return Result{OpID: id, State: StateDamaged}, nil
	}
	if tx.Bucket(bucketOf(s)).Get(seqKey(seq)) == nil {
		return Result{OpID: id, State: StateUnknown}, nil // a damaged done record pruned
	}
	r, err := getRecord(tx, seq, s)
	if isDamaged(err) {
		return Result{OpID: id, State: StateDamaged}, nil
	}
	if err != nil {
		return Result{}, err
	}
	return r.result(s), nil
}

// SetError records msg as the last flush error. Errors: EUnavailable
// after Close.
func (db *DB) SetError(msg string, now time.Time) error {
	v, err := json.Marshal(lastError{Msg: msg, At: now.UTC()})
	if err != nil {
		return err
	}
	return db.update("set error", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketMeta).Put(keyError, v)
	})
}

// Bind ties the outbox to share (on first use) and records server as the
// URL last flushed to. It writes only when something changed. Errors:
// EInvalid when the outbox is bound to another share; EUnavailable after
// Close.
func (db *DB) Bind(share sharevat.ShareID, server string) error {
	same := false
	err := db.view("bind", func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		same = string(meta.Get(keyShare)) == string(share) && string(meta.Get(keyServer)) == server
		return nil
	})
	if err != nil || same {
		return err
	}
	return db.update("bind", func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if cur := meta.Get(keyShare); cur != nil && string(cur) != string(share) {
			return sharevat.Errorf(sharevat.EInvalid, "outbox %s belongs to share %s, not %s", db.path, cur, share)
		}
		if err := meta.Put(keyShare, []byte(share)); err != nil {
			return err
		}
		return meta.Put(keyServer, []byte(server))
	})
}
