package bolt

import (
	"context"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/internal/core"
)

var _ sharevat.CompactedReader = (*DB)(nil)

// ReadCompacted implements sharevat.CompactedReader: what the
// compactions of share id kept beyond its log — the op-id index entries
// of cursors below its earliest, in op-id order, and its base bucket —
// read in one read transaction after the whole write-ahead log is
// applied (no op of the overlay is missed; appends wait meanwhile). A
// share never compacted has neither. Each index entry must name a
// cursor from 1 to the head, and each base entity must be a version-2
// value matching its digest, or the answer is ECorrupt. Errors:
// ENotFound (also for a deleted share).
func (db *DB) ReadCompacted(ctx context.Context, id sharevat.ShareID) (c sharevat.Compacted, err error) {
	err = db.viewFlushed(ctx, "read compacted", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		if err != nil {
			return err
		}
		c = sharevat.Compacted{Earliest: s.Earliest}
		if c.Ops, err = compactedOps(tx, &s); err != nil {
			return err
		}
		c.Base, err = baseEntities(tx, &s)
		return err
	})
	if err != nil {
		return sharevat.Compacted{}, err
	}
	return c, nil
}

// compactedOps returns the op-id index entries of s's compacted ops
// (cursor below s.Earliest): its sealed index, and any the live index
// still holds (a file upgraded from format 3 before its move finished).
// It walks the whole live index: it is keyed by op id, not by cursor.
func compactedOps(tx *bbolt.Tx, s *sharevat.Share) ([]sharevat.IndexedOp, error) {
	if s.Earliest <= 1 {
		return nil, nil
	}
	ops, err := shareBucket(tx, s.ID, bucketOps)
	if err != nil {
		return nil, err
	}
	out, err := sealedOps(sealedBucket(tx, s.ID), s)
	if err != nil {
		return nil, err
	}
	err = ops.ForEach(func(k, v []byte) error {
		cur, d, err := decodeOpIndex(v)
		switch {
		case err != nil:
			return core.BadRecord(s.ID, 0, err)
		case cur == 0 || cur > s.Head:
			return core.BadRecord(s.ID, cur, corruptf("the op-id index puts an op id at cursor %d; the head is %d", cur, s.Head))
		case cur < s.Earliest:
			out = append(out, sharevat.IndexedOp{OpID: string(k), Cursor: cur, Digest: d})
		}
		return nil
	})
	if err == nil && len(out) != int(s.Earliest-1) {
		err = core.BadRecord(s.ID, 0, corruptf("the op-id index holds %d op ids below cursor %d, not %d", len(out), s.Earliest, s.Earliest-1))
	}
	return out, err
}

// sealedOps returns every entry of the sealed index b (nil: none), each
// checked to be below s.Earliest.
func sealedOps(b *bbolt.Bucket, s *sharevat.Share) ([]sharevat.IndexedOp, error) {
	var out []sharevat.IndexedOp
	if b == nil {
		return nil, nil
	}
	err := b.ForEach(func(k, v []byte) error {
		blk, err := decodeBlock(k, v)
		if err != nil {
			return core.BadRecord(s.ID, 0, err)
		}
		for _, op := range blk {
			if op.cursor >= s.Earliest {
				return core.BadRecord(s.ID, op.cursor, corruptf("the sealed index puts an op id at cursor %d, not below the earliest %d", op.cursor, s.Earliest))
			}
			out = append(out, op.indexed())
		}
		return nil
	})
	return out, err
}

// baseEntities returns s's base bucket, each entity checked against the
// digest it carries.
func baseEntities(tx *bbolt.Tx, s *sharevat.Share) ([]sharevat.Entity, error) {
	logs := tx.Bucket(bucketLogs).Bucket([]byte(s.ID))
	if logs == nil {
		return nil, core.BadRecord(s.ID, 0, corruptf("bucket logs/%s is missing", s.ID))
	}
	base := logs.Bucket(bucketBase)
	if base == nil {
		return nil, nil
	}
	var out []sharevat.Entity
	err := base.ForEach(func(k, v []byte) error {
		e, d, err := decodeEntityDigest(k, v)
		if err == nil && d == nil {
			err = corruptf("base entity %s/%q is not a version-2 value", e.Kind, e.Key)
		}
		if err == nil && *d != apply.Digest(&sharevat.Op{Kind: e.Kind, Key: e.Key, Body: e.Body}) {
			err = corruptf("base entity %s/%q does not match its digest", e.Kind, e.Key)
		}
		if err != nil {
			return core.BadRecord(s.ID, e.Cursor, err)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}
