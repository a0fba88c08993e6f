package outbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// Discard drops the ops in state s (StatePending or StateFailed) and
// returns them, oldest first; with ids given, only those of them. A
// discarded op is forgotten: it is never sent (again), and its op id may
// be enqueued anew. A pending op that was already sent in a batch whose
// ack was lost may still have been applied by the server; Discard cannot
// know. Errors: EInvalid for another state; EUnavailable after Close.
func (db *DB) Discard(s State, ids ...string) ([]Result, error) {
	if s != StatePending && s != StateFailed {
		return nil, sharevat.Errorf(sharevat.EInvalid, "outbox: only pending or failed ops can be discarded, not %s", s)
	}
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[id] = true
	}
	var out []Result
	err := db.update("discard", func(tx *bbolt.Tx) error {
		recs, err := records(tx, s)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if len(ids) > 0 && !want[r.OpID] {
				continue
			}
			if err := dropRecord(tx, r, s); err != nil {
				return err
			}
			out = append(out, r.result(s))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// records reads every sound record in state s, in enqueue order; the
// damaged ones are left out.
func records(tx *bbolt.Tx, s State) ([]*record, error) {
	var recs []*record
	err := tx.Bucket(bucketOf(s)).ForEach(func(k, v []byte) error {
		r, err := decodeRecord(s, k, v)
		if isDamaged(err) {
			return nil // DiscardDamaged drops it
		}
		if err == nil {
			recs = append(recs, r)
		}
		return err
	})
	return recs, err
}

// ErrNotEmpty is Remove's answer for an outbox that still holds pending,
// failed or damaged ops.
var ErrNotEmpty = errors.New("outbox: still holds pending or failed ops")

// Remove deletes the outbox file at path if it holds no pending, no
// failed and no damaged op, taking its lock first (waiting up to opts.LockTimeout), so
// no other process is using it while it goes. Errors: ErrNotEmpty; those
// of Open.
func Remove(path string, opts Options) error {
	db, err := Open(path, opts)
	if err != nil {
		return err
	}
	defer db.Close()
	st, err := db.Status()
	if err != nil {
		return err
	}
	if st.Pending+st.Failed+st.Damaged > 0 {
		return ErrNotEmpty
	}
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("outbox: remove %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}
