package bolt

import (
	"fmt"
	"slices"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/internal/core"
)

// logView is the apply.Tx of one share inside one read-write
// transaction. Reads go to the same transaction as writes, so Lookup finds
// ops put earlier in the batch and Head advances with every Put.
type logView struct {
	epoch  sharevat.Epoch
	head   sharevat.Cursor
	id     sharevat.ShareID
	log    *bbolt.Bucket
	ops    *bbolt.Bucket
	sealed *bbolt.Bucket // nil until the first compaction
	stateWriter
}

// stateWriter applies log entries to a share's state. After a
// compaction (earliest > 1) it keeps the base bucket true: before an
// entity whose log record was compacted (cursor < earliest) is
// overwritten or deleted, its value is copied to base, so that the
// state at earliest-1 stays known (the state entities with cursor <
// earliest, and base).
type stateWriter struct {
	earliest sharevat.Cursor
	state    *bbolt.Bucket
	base     *bbolt.Bucket // nil until the first compaction
}

var _ apply.Tx = (*logView)(nil)

// openLogView opens s's buckets in tx.
func openLogView(tx *bbolt.Tx, s *sharevat.Share) (*logView, error) {
	v := &logView{epoch: s.Epoch, head: s.Head, id: s.ID}
	v.earliest = s.Earliest
	for _, b := range []struct {
		dst  **bbolt.Bucket
		name []byte
	}{{&v.log, bucketLog}, {&v.ops, bucketOps}, {&v.state, bucketState}} {
		var err error
		if *b.dst, err = shareBucket(tx, s.ID, b.name); err != nil {
			return nil, err
		}
	}
	v.log.FillPercent = 1 // keys only ever grow: pack pages full
	v.sealed = sealedBucket(tx, s.ID)
	if s.Earliest > 1 {
		var err error
		if v.base, err = shareBucket(tx, s.ID, bucketBase); err != nil {
			return nil, err
		}
	}
	return v, nil
}

// Epoch is the share's current epoch.
func (v *logView) Epoch() sharevat.Epoch { return v.epoch }

// Head is the cursor of the share's last op, including ops put in this
// transaction.
func (v *logView) Head() sharevat.Cursor { return v.head }

// Lookup finds an op id in the permanent op-id index (lookupOp).
func (v *logView) Lookup(opID string) (sharevat.IndexedOp, bool, error) {
	return lookupOp(v.id, v.log, v.ops, v.sealed, v.earliest, opID)
}

// lookupOp finds opID in a share's op-id index: the live index ops,
// whose entry is checked against the log record it points at
// (verifyIndexed) before a duplicate or a met dependency is answered from
// it, then the sealed index of compacted ops (nil: none), whose entry
// must be below earliest (and is short: sealed.go).
func lookupOp(id sharevat.ShareID, log, ops, sealed *bbolt.Bucket, earliest sharevat.Cursor, opID string) (sharevat.IndexedOp, bool, error) {
	val := ops.Get([]byte(opID))
	if val == nil {
		ix, ok, err := sealedLookup(sealed, []byte(opID))
		if err == nil && ok && ix.Cursor >= earliest {
			err = corruptf("the sealed index puts an op id at cursor %d, not below the earliest %d", ix.Cursor, earliest)
		}
		if err != nil {
			return sharevat.IndexedOp{}, false, core.BadRecord(id, ix.Cursor, err)
		}
		return ix, ok, nil
	}
	c, d, err := decodeOpIndex(val)
	if err == nil {
		err = verifyIndexed(log, ops, opID, c, d, earliest)
	}
	if err != nil {
		return sharevat.IndexedOp{}, false, core.BadRecord(id, c, err)
	}
	return sharevat.IndexedOp{OpID: opID, Cursor: c, Digest: d}, true, nil
}

// sealedBucket returns share id's sealed index, nil before its first
// compaction.
func sealedBucket(tx *bbolt.Tx, id sharevat.ShareID) *bbolt.Bucket {
	if logs := tx.Bucket(bucketLogs).Bucket([]byte(id)); logs != nil {
		return logs.Bucket(bucketSealed)
	}
	return nil
}

// Put appends e at Head()+1, indexes its op id and updates the state.
func (v *logView) Put(e *sharevat.Entry) error {
	if e.Cursor != v.head+1 || e.OpID == "" {
		return fmt.Errorf("share %q: put at cursor %d with head %d", v.id, e.Cursor, v.head)
	}
	if err := v.log.Put(u64Key(uint64(e.Cursor)), encodeEntry(e)); err != nil {
		return fmt.Errorf("share %q log: %w", v.id, err)
	}
	if err := v.ops.Put([]byte(e.OpID), opIndexValue(e.Cursor, e.Digest)); err != nil {
		return fmt.Errorf("share %q ops: %w", v.id, err)
	}
	if err := v.apply(e); err != nil {
		return fmt.Errorf("share %q state: %w", v.id, err)
	}
	v.head = e.Cursor
	return nil
}

// apply upserts or deletes e's entity (an upsert only when it
// supersedes the entity: apply.Supersedes); events have none.
func (w *stateWriter) apply(e *sharevat.Entry) error {
	if !sharevat.IsStateKind(e.Kind) {
		return nil
	}
	k := stateKey(e.Kind, e.Key)
	if !e.Delete {
		if keep, err := w.keeps(k, e.Body); keep || err != nil {
			return err
		}
	}
	if err := w.keepBase(k); err != nil {
		return err
	}
	if e.Delete {
		return w.state.Delete(k)
	}
	return w.state.Put(k, encodeEntity(e))
}

// keeps reports whether the entity under k stays as it is when a body
// of its key is written after it: it is newer (apply.Supersedes, the
// version rule of every fold).
func (w *stateWriter) keeps(k, body []byte) (bool, error) {
	old := w.state.Get(k)
	if old == nil {
		return false, nil
	}
	cur, err := entityBody(old)
	if err != nil {
		return false, err
	}
	return !apply.Supersedes(body, cur), nil
}

// keepBase copies the state value under k to base before it changes, if
// its log record was compacted.
func (w *stateWriter) keepBase(k []byte) error {
	if w.earliest <= 1 {
		return nil
	}
	old := w.state.Get(k)
	if old == nil {
		return nil
	}
	c, err := entityCursor(old)
	if err != nil || c >= w.earliest {
		return err
	}
	if w.base == nil {
		return corruptf("the base bucket of a compacted share is missing")
	}
	return w.base.Put(k, slices.Clone(old))
}
