package bolt

import (
	"context"
	"fmt"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Fork creates s as a fork of share parent at cursor at, with its owner
// grant, in one transaction: s's log is a copy of the parent's records
// up to at (the same bytes: a record holds neither its cursor nor its
// share, so it is copied without decoding beyond its check), its op-id
// index the parent's entries up to at, and its state the parent's state
// at at, rebuilt by replaying the copied records over the parent's state
// at its earliest-1 (the state before any compaction point, see doc.go).
// A compacted parent gives a compacted fork (same Earliest). The copy is
// one transaction, however long the log: a fork of a very long log holds
// the write lock for as long as it takes.
// Errors: as CreateShare; ENotFound if the parent does not exist or is
// deleted; EInvalid if at is past its head; ECompacted if at <
// earliest-1.
func (db *DB) Fork(ctx context.Context, parent sharevat.ShareID, at sharevat.Cursor, s sharevat.Share, owner sharevat.Grant) (sharevat.Share, error) {
	return db.ForkWithin(ctx, parent, at, s, owner, sharevat.ForkQuota{})
}

// ForkWithin is Fork within quota q (sharevat.ShareStore), counted in
// the fork's write transaction, which bbolt runs alone (forktree.go).
func (db *DB) ForkWithin(ctx context.Context, parent sharevat.ShareID, at sharevat.Cursor, s sharevat.Share, owner sharevat.Grant, q sharevat.ForkQuota) (sharevat.Share, error) {
	if err := core.NewShare(&s, &owner); err != nil {
		return sharevat.Share{}, err
	}
	s.ParentID, s.ForkCursor, s.Head = parent, at, at
	err := db.updateFlushed(ctx, "fork", func(tx *bbolt.Tx) error {
		p, err := liveShare(tx, parent)
		if err != nil {
			return err
		}
		if err := core.CheckFork(&p, at); err != nil {
			return err
		}
		charge, err := chargeFork(tx, &p, q)
		if err != nil {
			return err
		}
		s.Earliest = p.Earliest
		if tx.Bucket(bucketShares).Get([]byte(s.ID)) != nil {
			return sharevat.Errorf(sharevat.EConflict, "share %q already exists", s.ID)
		}
		if err := putNewGrant(tx, &owner); err != nil {
			return err
		}
		if err := createLog(tx, s.ID); err != nil {
			return err
		}
		copied, err := copyLog(tx, &p, &s)
		if err != nil {
			return err
		}
		if err := charge.charge(s.ID, copied); err != nil {
			return err
		}
		return putShare(tx, nil, &s)
	})
	return core.OrZero(s, err)
}

// forkCopy is the buckets of one fork: the parent's (from) and the new
// share's (to).
type forkCopy struct {
	parent, child       sharevat.ShareID
	fromLog, fromOps    *bbolt.Bucket
	fromState, fromBase *bbolt.Bucket
	toLog, toOps        *bbolt.Bucket
	fromSealed          *bbolt.Bucket // nil: the parent has no sealed index
	toSealed            *bbolt.Bucket
	to                  stateWriter
	copied              int64 // bytes of the log records and op-id index entries copied
}

// copyLog copies p's log, op-id index and state up to s.ForkCursor into
// s's new buckets, and returns the bytes of log records and op-id index
// entries it copied (what the fork is charged, forktree.go).
func copyLog(tx *bbolt.Tx, p, s *sharevat.Share) (int64, error) {
	f, err := openForkCopy(tx, p, s)
	if err != nil {
		return 0, err
	}
	if err := f.copyOps(s.ForkCursor); err != nil {
		return 0, err
	}
	if err := f.copyBaseState(s.Earliest); err != nil {
		return 0, err
	}
	err = f.copyEntries(s.Earliest, s.ForkCursor)
	return f.copied, err
}

func openForkCopy(tx *bbolt.Tx, p, s *sharevat.Share) (*forkCopy, error) {
	f := &forkCopy{parent: p.ID, child: s.ID, to: stateWriter{earliest: s.Earliest}}
	for _, b := range []struct {
		dst   **bbolt.Bucket
		share sharevat.ShareID
		name  []byte
	}{
		{&f.fromLog, p.ID, bucketLog}, {&f.fromOps, p.ID, bucketOps}, {&f.fromState, p.ID, bucketState},
		{&f.toLog, s.ID, bucketLog}, {&f.toOps, s.ID, bucketOps}, {&f.to.state, s.ID, bucketState},
	} {
		var err error
		if *b.dst, err = shareBucket(tx, b.share, b.name); err != nil {
			return nil, err
		}
	}
	f.toLog.FillPercent = 1
	if p.Earliest <= 1 {
		return f, nil
	}
	var err error
	if f.fromBase, err = shareBucket(tx, p.ID, bucketBase); err != nil {
		return nil, err
	}
	logs := tx.Bucket(bucketLogs).Bucket([]byte(s.ID))
	if f.to.base, err = logs.CreateBucket(bucketBase); err != nil {
		return nil, err
	}
	if f.fromSealed = sealedBucket(tx, p.ID); f.fromSealed != nil {
		f.toSealed, err = logs.CreateBucket(bucketSealed)
	}
	return f, err
}

// copyOps copies the parent's op-id index entries up to at, compacted
// ones included: its sealed index whole (every entry of it is below
// earliest, so at or below at), each block checked.
func (f *forkCopy) copyOps(at sharevat.Cursor) error {
	if f.fromSealed != nil {
		err := f.fromSealed.ForEach(func(k, v []byte) error {
			if _, err := decodeBlock(k, v); err != nil {
				return core.BadRecord(f.parent, 0, err)
			}
			f.copied += int64(len(k) + len(v))
			return f.toSealed.Put(k, v)
		})
		if err != nil {
			return err
		}
	}
	return f.fromOps.ForEach(func(k, v []byte) error {
		c, _, err := decodeOpIndex(v)
		if err != nil {
			return core.BadRecord(f.parent, 0, fmt.Errorf("op-id index: %w", err))
		}
		if c > at {
			return nil
		}
		f.copied += int64(len(k) + len(v))
		return f.toOps.Put(k, v)
	})
}

// copyBaseState puts the parent's state at earliest-1 into the child's
// state: its entities whose record was compacted, and its base.
func (f *forkCopy) copyBaseState(earliest sharevat.Cursor) error {
	if earliest <= 1 {
		return nil
	}
	err := f.fromState.ForEach(func(k, v []byte) error {
		c, err := entityCursor(v)
		if err != nil {
			return core.BadRecord(f.parent, 0, err)
		}
		if c >= earliest {
			return nil
		}
		return f.to.state.Put(k, v)
	})
	if err != nil {
		return err
	}
	return f.fromBase.ForEach(func(k, v []byte) error { return f.to.state.Put(k, v) })
}

// copyEntries copies the parent's records [from, at], each checked, and
// applies each to the child's state.
func (f *forkCopy) copyEntries(from, at sharevat.Cursor) error {
	for cur := from; cur <= at && cur > 0; cur++ {
		k := u64Key(uint64(cur))
		v := f.fromLog.Get(k)
		e, err := decodeEntry(k, v) // missing: corrupt
		if err == nil {
			err = verifyEntry(&e, f.fromOps)
		}
		if err != nil {
			return core.BadRecord(f.parent, cur, err)
		}
		f.copied += int64(len(k) + len(v))
		if err := f.toLog.Put(k, v); err != nil {
			return err
		}
		if err := f.to.apply(&e); err != nil {
			return err
		}
	}
	return nil
}

// Children lists the live shares forked from parent, oldest first.
// Errors: ENotFound if parent does not exist or is deleted.
func (db *DB) Children(ctx context.Context, parent sharevat.ShareID) (out []sharevat.Share, err error) {
	tails := db.tailHeads() // before the transaction: see overlay
	err = db.view(ctx, "children", func(tx *bbolt.Tx) error {
		if _, err := liveShare(tx, parent); err != nil {
			return err
		}
		return forEachChildShare(tx, parent, func(id sharevat.ShareID) error {
			s, err := getShare(tx, id)
			if err != nil {
				return fmt.Errorf("share_children index: %w", err)
			}
			if !s.Deleted {
				tails[s.ID].overShare(&s)
				out = append(out, s)
			}
			return nil
		})
	})
	return core.OrZero(out, err)
}
