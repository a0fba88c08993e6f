package bolt

import (
	"bytes"
	"context"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/internal/core"
)

// CreateCompacted creates share s as another store holds it after its
// compactions (sharevat migrate's way back, into a new data directory):
// in one transaction, the share record as given (parent and fork cursor
// kept, Earliest = c.Earliest, head Earliest-1), its owner grant, the
// op-id index entries of the ops compacted away (c.Ops, exactly
// Earliest-1 of them, each below Earliest), and the state at
// Earliest-1: c.Base, then the entities of state (the share's current
// state) last written below Earliest, each a version-2 value with its
// content's digest, as Compact leaves them. The base bucket starts
// empty: appending the ops from Earliest on, as the other store's log
// holds them, moves each entity they change into it (stateWriter), so
// the share ends as this store's own compactions would have left it.
// A share never compacted (c.Earliest <= 1) is created empty with its
// parent and fork cursor. Errors: EConflict if the share or grant id
// exists; EInvalid for a compacted part that does not fit.
func (db *DB) CreateCompacted(ctx context.Context, s sharevat.Share, owner sharevat.Grant, c sharevat.Compacted, state []sharevat.Entity) error {
	if err := core.CheckNewShare(&s, &owner); err != nil {
		return err
	}
	if err := checkCompactedCopy(s.ID, &c, state); err != nil {
		return err
	}
	s.Earliest, s.Head, s.OwnerRoot = max(c.Earliest, 1), max(c.Earliest, 1)-1, owner.ID
	s.Deleted, s.DeletedAt = false, time.Time{}
	return db.updateFlushed(ctx, "create compacted", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketShares).Get([]byte(s.ID)) != nil {
			return sharevat.Errorf(sharevat.EConflict, "share %q already exists", s.ID)
		}
		if err := putNewGrant(tx, &owner); err != nil {
			return err
		}
		if err := putShare(tx, nil, &s); err != nil {
			return err
		}
		if err := createLog(tx, s.ID); err != nil {
			return err
		}
		if s.Earliest <= 1 {
			return nil
		}
		return putCompacted(tx, &s, &c, state)
	})
}

// checkCompactedCopy refuses a compacted part that does not fit: op ids
// outside 1..Earliest-1 or not Earliest-1 of them, or a base entity
// written at or past Earliest.
func checkCompactedCopy(id sharevat.ShareID, c *sharevat.Compacted, state []sharevat.Entity) error {
	if c.Earliest <= 1 {
		if len(c.Ops) > 0 || len(c.Base) > 0 {
			return sharevat.Errorf(sharevat.EInvalid, "share %s: compacted ops or base for a share never compacted", id)
		}
		return nil
	}
	if len(c.Ops) != int(c.Earliest-1) {
		return sharevat.Errorf(sharevat.EInvalid, "share %s: %d compacted op ids below cursor %d, not %d", id, len(c.Ops), c.Earliest, c.Earliest-1)
	}
	for _, ix := range c.Ops {
		if ix.Cursor < 1 || ix.Cursor >= c.Earliest || ix.OpID == "" {
			return sharevat.Errorf(sharevat.EInvalid, "share %s: compacted op id %q at cursor %d, outside 1..%d", id, ix.OpID, ix.Cursor, c.Earliest-1)
		}
	}
	for _, e := range c.Base {
		if e.Cursor < 1 || e.Cursor >= c.Earliest || !sharevat.IsStateKind(e.Kind) {
			return sharevat.Errorf(sharevat.EInvalid, "share %s: base entity %s/%q at cursor %d, outside 1..%d", id, e.Kind, e.Key, e.Cursor, c.Earliest-1)
		}
	}
	return nil
}

// putSealed writes the op ids of compacted ops to s's new sealed index.
// An op id given twice is EInvalid.
func putSealed(tx *bbolt.Tx, s *sharevat.Share, ixs []sharevat.IndexedOp, ops *bbolt.Bucket) error {
	sealed, err := tx.Bucket(bucketLogs).Bucket([]byte(s.ID)).CreateBucket(bucketSealed)
	if err != nil {
		return err
	}
	list := make([]sealedOp, len(ixs))
	for i := range ixs {
		list[i] = newSealedOp([]byte(ixs[i].OpID), ixs[i].Cursor, &ixs[i].Digest)
	}
	sortSealed(list)
	for i := range list {
		if (i > 0 && bytes.Equal(list[i-1].id, list[i].id)) || ops.Get(list[i].id) != nil {
			return sharevat.Errorf(sharevat.EInvalid, "share %s: compacted op id %q given twice", s.ID, list[i].id)
		}
	}
	return seal(sealed, list)
}

// putCompacted writes s's op-id index entries of compacted ops, its
// empty base bucket and its state at Earliest-1.
func putCompacted(tx *bbolt.Tx, s *sharevat.Share, c *sharevat.Compacted, state []sharevat.Entity) error {
	ops, err := shareBucket(tx, s.ID, bucketOps)
	if err != nil {
		return err
	}
	if err := putSealed(tx, s, c.Ops, ops); err != nil {
		return err
	}
	if _, err := tx.Bucket(bucketLogs).Bucket([]byte(s.ID)).CreateBucket(bucketBase); err != nil {
		return err
	}
	st, err := shareBucket(tx, s.ID, bucketState)
	if err != nil {
		return err
	}
	for _, set := range [][]sharevat.Entity{c.Base, state} {
		for i := range set {
			if err := putSettled(st, &set[i], s.Earliest); err != nil {
				return err
			}
		}
	}
	return nil
}

// putSettled puts e into state as a version-2 value if its last write
// is below earliest (a compacted one); later ones are the log's to
// write.
func putSettled(state *bbolt.Bucket, e *sharevat.Entity, earliest sharevat.Cursor) error {
	if e.Cursor >= earliest {
		return nil
	}
	d := apply.Digest(&sharevat.Op{Kind: e.Kind, Key: e.Key, Body: e.Body})
	return state.Put(stateKey(e.Kind, e.Key), encodeEntity2(e, d))
}
