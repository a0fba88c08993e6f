package bolt

import (
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/commit"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Append applies one batch with the append engine (store/apply) in one
// transaction (shared with concurrent appends, see doc.go) and returns
// once that transaction is durable. The batch is prepared (apply.Prepare)
// on the caller's goroutine, outside the shared transaction. Errors:
// ENotFound if the share does not exist or is deleted; EInvalid if the
// batch is nil or the limits are invalid.
func (db *DB) Append(ctx context.Context, req sharevat.AppendRequest) (sharevat.Ack, error) {
	if err := core.CheckAppend(ctx, "bolt", &req); err != nil {
		return sharevat.Ack{}, err
	}
	call := commit.NewCall(req)
	db.commits.Do(call)
	return core.OrZero(call.Ack, db.wrap("append", call.Err))
}

// applyAppend runs one prepared append inside tx. The head needs no
// write: it is the log's last key (logHead). An append that applies ops
// moves the share's Meta.UpdatedAt to its time (touchShare).
func applyAppend(tx *bbolt.Tx, call *commit.Call) (sharevat.Ack, error) {
	s, err := liveShare(tx, call.Req.Share)
	if err != nil {
		return sharevat.Ack{}, err
	}
	view, err := openLogView(tx, &s)
	if err != nil {
		return sharevat.Ack{}, err
	}
	ack, err := call.Prep.Apply(view, call.Req.Now)
	if err != nil || ack.Applied == 0 {
		return ack, err
	}
	s.Head = ack.Head
	return ack, touchShare(tx, &s, call.Req.Now)
}

// Read returns up to limit entries with cursor > after, in cursor order,
// and the share's head. Errors: ENotFound (also for a deleted share);
// EInvalid for limit < 1; ECompacted if after+1 is before the share's
// earliest readable cursor (core.Compacted).
func (db *DB) Read(ctx context.Context, id sharevat.ShareID, after sharevat.Cursor, limit int) (out []sharevat.Entry, head sharevat.Cursor, err error) {
	if limit < 1 {
		return nil, 0, sharevat.Errorf(sharevat.EInvalid, "read limit is %d; want at least 1", limit)
	}
	tv := db.tailView(id)
	err = db.view(ctx, "read", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		stored := s.Head
		head = max(stored, tv.head())
		if err != nil || after >= head {
			return err
		}
		if after+1 < s.Earliest {
			return core.Compacted(s.Earliest)
		}
		out = make([]sharevat.Entry, 0, min(uint64(limit), uint64(head-after)))
		if after < stored {
			if out, err = readEntries(tx, id, after, out); err != nil {
				return err
			}
		}
		out = tv.after(max(after, stored), out)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, head, nil
}

// readEntries appends share id's entries with cursor > after until out
// is full, each checked (verifyEntry) before it is served.
func readEntries(tx *bbolt.Tx, id sharevat.ShareID, after sharevat.Cursor, out []sharevat.Entry) ([]sharevat.Entry, error) {
	log, err := shareBucket(tx, id, bucketLog)
	if err != nil {
		return out, err
	}
	ops, err := shareBucket(tx, id, bucketOps)
	if err != nil {
		return out, err
	}
	c := log.Cursor()
	for k, v := c.Seek(u64Key(uint64(after) + 1)); k != nil && len(out) < cap(out); k, v = c.Next() {
		e, err := decodeEntry(k, v)
		if err == nil {
			err = verifyEntry(&e, ops)
		}
		if err != nil {
			return out, core.BadRecord(id, keyCursor(k, after+1+sharevat.Cursor(len(out))), err)
		}
		out = append(out, e)
	}
	return out, nil
}

// keyCursor is the cursor log key k names, or def if k is malformed.
func keyCursor(k []byte, def sharevat.Cursor) sharevat.Cursor {
	if c, err := decodeU64Key(k); err == nil {
		return sharevat.Cursor(c)
	}
	return def
}

// Snapshot returns the materialized state, ordered by (kind, key), and
// the head it reflects. Errors: ENotFound (also for a deleted share).
func (db *DB) Snapshot(ctx context.Context, id sharevat.ShareID) (out []sharevat.Entity, head sharevat.Cursor, err error) {
	tv := db.tailView(id)
	err = db.view(ctx, "snapshot", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		if err != nil {
			return err
		}
		head = max(s.Head, tv.head())
		if out, err = readState(tx, id); err != nil {
			return err
		}
		out = tv.mergeState(out, s.Head)
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return out, head, nil
}

// readState decodes every entity of a share's state bucket, each checked
// against the log record that wrote it (verifyEntity).
func readState(tx *bbolt.Tx, id sharevat.ShareID) (out []sharevat.Entity, err error) {
	b, err := shareBucket(tx, id, bucketState)
	if err != nil {
		return nil, err
	}
	log, err := shareBucket(tx, id, bucketLog)
	if err != nil {
		return nil, err
	}
	err = b.ForEach(func(k, v []byte) error {
		e, err := decodeEntity(k, v)
		if err == nil {
			err = verifyEntity(log, &e, v)
		}
		if err != nil {
			return core.BadRecord(id, e.Cursor, err)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// shareBucket returns logs/<id>/<name>.
func shareBucket(tx *bbolt.Tx, id sharevat.ShareID, name []byte) (*bbolt.Bucket, error) {
	if logs := tx.Bucket(bucketLogs).Bucket([]byte(id)); logs != nil {
		if b := logs.Bucket(name); b != nil {
			return b, nil
		}
	}
	return nil, corruptf("bucket logs/%s/%s is missing", id, name)
}
