package bolt

import (
	"slices"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
	"github.com/sharevat/sharevat/store/internal/core"
)

// keySealing, in the sharevat bucket, marks a file whose compacted op
// ids may still be in the live op-id index: a format-3 file, upgraded to
// format 4 and not yet moved whole. Open moves them (sealCompacted) and
// then deletes it. The format byte turns 4 first, in the same
// transaction as the mark, so no format-3 build opens a file whose
// sealed index it would not read; lookups read both indexes, so a move
// cut short by a crash is only resumed at the next Open.
var keySealing = []byte("sealing")

// sealChunk is how many op ids one transaction of the move takes (a
// variable for tests).
var sealChunk = 65536

// sealCompacted moves the op ids of compacted ops from the live op-id
// index to the sealed index, share by share, in transactions of at most
// sealChunk op ids, if the file is marked as needing it.
func (db *DB) sealCompacted() error {
	var pending bool
	var shares []sharevat.Share
	err := db.bdb.View(func(tx *bbolt.Tx) error {
		if pending = tx.Bucket(bucketMeta).Get(keySealing) != nil; !pending {
			return nil
		}
		return tx.Bucket(bucketShares).ForEach(func(k, v []byte) error {
			s, err := decodeShare(v)
			if err == nil && !s.Deleted && s.Earliest > 1 {
				shares = append(shares, s)
			}
			return err
		})
	})
	if err != nil || !pending {
		return err
	}
	for i := range shares {
		if err := db.sealShare(&shares[i]); err != nil {
			return err
		}
	}
	return boltutil.Update(db.bdb, func(tx *bbolt.Tx) error { return tx.Bucket(bucketMeta).Delete(keySealing) })
}

// sealShare moves s's compacted op ids, sealChunk at a time.
func (db *DB) sealShare(s *sharevat.Share) error {
	var from []byte
	for done := false; !done; {
		err := boltutil.Update(db.bdb, func(tx *bbolt.Tx) error {
			var err error
			from, done, err = sealShareChunk(tx, s, from)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// sealShareChunk moves up to sealChunk compacted op ids of s, from op id
// from on, and says where to go on, or that it is done.
func sealShareChunk(tx *bbolt.Tx, s *sharevat.Share, from []byte) (next []byte, done bool, err error) {
	ops, err := shareBucket(tx, s.ID, bucketOps)
	if err != nil {
		return nil, false, err
	}
	sealed, err := tx.Bucket(bucketLogs).Bucket([]byte(s.ID)).CreateBucketIfNotExists(bucketSealed)
	if err != nil {
		return nil, false, err
	}
	var moved []sealedOp
	c := ops.Cursor()
	k, v := c.Seek(from)
	for ; k != nil && len(moved) < sealChunk; k, v = c.Next() {
		cur, d, err := decodeOpIndex(v)
		if err != nil {
			return nil, false, core.BadRecord(s.ID, 0, err)
		}
		if cur < s.Earliest {
			moved = append(moved, newSealedOp(slices.Clone(k), cur, &d))
		}
	}
	next = slices.Clone(k)
	for i := range moved {
		if err := ops.Delete(moved[i].id); err != nil {
			return nil, false, err
		}
	}
	return next, next == nil, seal(sealed, moved)
}
