package bolt

import (
	"context"
	"errors"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Compact drops the log entries with cursor < before and returns the
// share's earliest readable cursor, which becomes before. The op-id
// index stays whole: the dropped entries' op ids move to the sealed
// index (sealed.go). The state stays exact: an entity written by a
// dropped entry is rewritten as version 2, carrying its digest, and the
// base bucket keeps the state at before-1 (see doc.go). The work is one
// transaction, whatever the number of entries it drops.
// Errors: ENotFound (also for a deleted share); EInvalid if before >
// head+1.
func (db *DB) Compact(ctx context.Context, id sharevat.ShareID, before sharevat.Cursor) (earliest sharevat.Cursor, err error) {
	err = db.updateFlushed(ctx, "compact", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		if err != nil {
			return err
		}
		earliest = s.Earliest
		if drop, err := core.CheckCompact(&s, before); err != nil || !drop {
			return err
		}
		if err := compactLog(tx, &s, before); err != nil {
			return err
		}
		old := s
		s.Earliest, earliest = before, before
		return putShare(tx, &old, &s)
	})
	return core.OrZero(earliest, err)
}

// compactLog moves s's entries [s.Earliest, before) into the base
// bucket, rewrites the entities they wrote as version 2, and deletes
// them.
func compactLog(tx *bbolt.Tx, s *sharevat.Share, before sharevat.Cursor) error {
	log, err := shareBucket(tx, s.ID, bucketLog)
	if err != nil {
		return err
	}
	ops, err := shareBucket(tx, s.ID, bucketOps)
	if err != nil {
		return err
	}
	state, err := shareBucket(tx, s.ID, bucketState)
	if err != nil {
		return err
	}
	base, err := tx.Bucket(bucketLogs).Bucket([]byte(s.ID)).CreateBucketIfNotExists(bucketBase)
	if err != nil {
		return err
	}
	sealed, err := tx.Bucket(bucketLogs).Bucket([]byte(s.ID)).CreateBucketIfNotExists(bucketSealed)
	if err != nil {
		return err
	}
	c := compaction{id: s.ID, log: log, ops: ops, state: state, base: base, earliest: s.Earliest, before: before, touched: map[string]struct{}{}}
	if err := c.toBase(s.Earliest); err != nil {
		return err
	}
	if err := c.settle(); err != nil {
		return err
	}
	if err := c.drop(s.Earliest); err != nil {
		return err
	}
	return c.seal(sealed)
}

// compaction is one Compact's work on one share.
type compaction struct {
	id                    sharevat.ShareID
	log, ops, state, base *bbolt.Bucket
	earliest, before      sharevat.Cursor
	touched               map[string]struct{} // state keys the dropped entries wrote
	dropped               []sealedOp          // the dropped entries' op-id index entries
}

// toBase applies the entries [from, before) to base, checking each, so
// that base holds the state at before-1 of every key they touched: an
// upsert only when it supersedes the key's value so far (apply.Supersedes,
// as the state's own fold).
func (c *compaction) toBase(from sharevat.Cursor) error {
	for cur := from; cur < c.before; cur++ {
		k := u64Key(uint64(cur))
		e, err := decodeEntry(k, c.log.Get(k)) // missing: corrupt
		if err == nil {
			err = verifyEntry(&e, c.ops)
		}
		if err != nil {
			return core.BadRecord(c.id, cur, err)
		}
		c.dropped = append(c.dropped, newSealedOp([]byte(e.OpID), e.Cursor, &e.Digest))
		if !sharevat.IsStateKind(e.Kind) {
			continue
		}
		sk := stateKey(e.Kind, e.Key)
		c.touched[string(sk)] = struct{}{}
		switch prior, ok, perr := c.prior(sk); {
		case perr != nil:
			return core.BadRecord(c.id, cur, perr)
		case e.Delete:
			err = c.base.Delete(sk)
		case ok && !apply.Supersedes(e.Body, prior):
		default:
			ent := sharevat.Entity{Kind: e.Kind, Key: e.Key, Body: e.Body, Cursor: e.Cursor, At: e.At}
			err = c.base.Put(sk, encodeEntity2(&ent, e.Digest))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// prior is the body of key sk at the cursor toBase has reached: its base
// copy, else the state's value if it is of a compacted op (no op since
// the earliest cursor superseded or deleted it), else none.
func (c *compaction) prior(sk []byte) ([]byte, bool, error) {
	if v := c.base.Get(sk); v != nil {
		b, err := entityBody(v)
		return b, err == nil, err
	}
	v := c.state.Get(sk)
	if v == nil {
		return nil, false, nil
	}
	at, err := entityCursor(v)
	if err != nil || at >= c.earliest {
		return nil, false, err
	}
	b, err := entityBody(v)
	return b, err == nil, err
}

// settle makes every touched entity whose last write is now compacted
// (cursor < before) a version-2 state value and drops its base copy,
// which the state itself now gives.
func (c *compaction) settle() error {
	for sk := range c.touched {
		k := []byte(sk)
		v := c.state.Get(k)
		if v == nil {
			continue
		}
		ent, _, err := decodeEntityDigest(k, v)
		if err != nil {
			return core.BadRecord(c.id, 0, err)
		}
		if ent.Cursor >= c.before || ent.Cursor < c.earliest {
			continue // not compacted now, or settled by an earlier compaction
		}
		rec := c.log.Get(u64Key(uint64(ent.Cursor))) // checked by toBase
		if len(rec) < entryFixed {
			return core.BadRecord(c.id, ent.Cursor, corruptf("entity %s/%q names a cursor the log does not hold", ent.Kind, ent.Key))
		}
		if err := c.state.Put(k, encodeEntity2(&ent, [32]byte(rec[14:entryFixed]))); err != nil {
			return err
		}
		if err := c.base.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// seal moves the dropped entries' op ids from the op-id index to the
// sealed index (sealed.go).
func (c *compaction) seal(sealed *bbolt.Bucket) error {
	for i := range c.dropped {
		if err := c.ops.Delete(c.dropped[i].id); err != nil {
			return err
		}
	}
	sortSealed(c.dropped)
	err := seal(sealed, c.dropped)
	if errors.Is(err, errCorrupt) {
		return core.BadRecord(c.id, 0, err)
	}
	return err
}

// drop deletes the entries [from, before).
func (c *compaction) drop(from sharevat.Cursor) error {
	for cur := from; cur < c.before; cur++ {
		if err := c.log.Delete(u64Key(uint64(cur))); err != nil {
			return err
		}
	}
	return nil
}
