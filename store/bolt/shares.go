package bolt

import (
	"context"
	"encoding/binary"
	"fmt"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Per-share bucket names under logs/<share id>.
var (
	bucketLog   = []byte("log")
	bucketOps   = []byte("ops")
	bucketState = []byte("state")
	bucketBase  = []byte("base") // since format 3: made by the first compaction
)

// CreateShare stores s and its owner grant atomically. s.Head is ignored
// (a new log is empty) and s.OwnerRoot is set to owner.ID.
// Errors: EConflict if the share or grant id exists; EInvalid if an id is
// empty, owner.ShareID != s.ID, or owner.Epoch != s.Epoch.
func (db *DB) CreateShare(ctx context.Context, s sharevat.Share, owner sharevat.Grant) error {
	if err := core.NewShare(&s, &owner); err != nil {
		return err
	}
	return db.update(ctx, "create share", func(tx *bbolt.Tx) error {
		if tx.Bucket(bucketShares).Get([]byte(s.ID)) != nil {
			return sharevat.Errorf(sharevat.EConflict, "share %q already exists", s.ID)
		}
		if err := putNewGrant(tx, &owner); err != nil {
			return err
		}
		if err := putShare(tx, nil, &s); err != nil {
			return err
		}
		return createLog(tx, s.ID)
	})
}

// createLog creates logs/<id> and its log, ops and state buckets.
func createLog(tx *bbolt.Tx, id sharevat.ShareID) error {
	logs, err := tx.Bucket(bucketLogs).CreateBucket([]byte(id))
	if err != nil {
		return fmt.Errorf("log bucket: %w", err)
	}
	for _, name := range [][]byte{bucketLog, bucketOps, bucketState} {
		if _, err := logs.CreateBucket(name); err != nil {
			return fmt.Errorf("log bucket: %w", err)
		}
	}
	return nil
}

// Share returns one share, deleted or not. Errors: ENotFound.
func (db *DB) Share(ctx context.Context, id sharevat.ShareID) (s sharevat.Share, err error) {
	tv := db.tailView(id)
	err = db.view(ctx, "share", func(tx *bbolt.Tx) error {
		s, err = getShare(tx, id)
		tv.overShare(&s)
		return err
	})
	return s, err
}

// Shares lists all shares, deleted ones included, ordered by id. Each
// share's Head is its log's head, as Share gives it, never the
// informational head field of the share record.
func (db *DB) Shares(ctx context.Context) (out []sharevat.Share, err error) {
	heads := db.tailHeads()
	err = db.view(ctx, "shares", func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketShares).ForEach(func(k, v []byte) error {
			s, err := decodeShare(v)
			if err != nil {
				return fmt.Errorf("share %q: %w", k, err)
			}
			setHead(tx, &s)
			heads[s.ID].overShare(&s)
			out = append(out, s)
			return nil
		})
	})
	return core.OrZero(out, err)
}

// UpdateMeta applies patch at now and returns the updated share; a patch
// that changes the status sets Meta.StatusAt to now. Errors: ENotFound
// (also for a deleted share), and the EInvalid or ETooLarge of
// MetaPatch.Apply.
//
// It does not wait for the write-ahead log: a patch touches only the
// share record and its indexes, which the log's records never hold (the
// applier re-reads the record and only moves the update time forward),
// and the returned share has the log's acknowledged appends laid over it.
func (db *DB) UpdateMeta(ctx context.Context, id sharevat.ShareID, patch sharevat.MetaPatch, now time.Time) (s sharevat.Share, err error) {
	tv := db.tailView(id)
	err = db.update(ctx, "update meta", func(tx *bbolt.Tx) error {
		if s, err = liveShare(tx, id); err != nil {
			return err
		}
		old := s
		if err := core.UpdateMeta(&s, patch, now); err != nil {
			return err
		}
		if err := putShare(tx, &old, &s); err != nil {
			return err
		}
		tv.overShare(&s)
		return nil
	})
	return core.OrZero(s, err)
}

// BumpEpoch increments the share's epoch and stores owner as its new
// owner grant, atomically. Errors: ENotFound (also for a deleted share);
// EConflict if owner.Epoch is not the current epoch + 1 or owner.ID
// exists; EInvalid if owner.ShareID != id or owner.ID is empty.
func (db *DB) BumpEpoch(ctx context.Context, id sharevat.ShareID, owner sharevat.Grant) (s sharevat.Share, err error) {
	if err := core.CheckNewOwner(id, &owner); err != nil {
		return s, err
	}
	err = db.updateFlushed(ctx, "bump epoch", func(tx *bbolt.Tx) error {
		if s, err = liveShare(tx, id); err != nil {
			return err
		}
		old := s
		if err := core.BumpEpoch(&s, &owner); err != nil {
			return err
		}
		if err := putNewGrant(tx, &owner); err != nil {
			return err
		}
		return putShare(tx, &old, &s)
	})
	return core.OrZero(s, err)
}

// getShare loads a share. Errors: ENotFound.
func getShare(tx *bbolt.Tx, id sharevat.ShareID) (sharevat.Share, error) {
	v := tx.Bucket(bucketShares).Get([]byte(id))
	if v == nil {
		return sharevat.Share{}, core.NotFound(id)
	}
	s, err := decodeShare(v)
	if err != nil {
		return s, fmt.Errorf("share %q: %w", id, err)
	}
	setHead(tx, &s)
	return s, nil
}

// setHead sets s.Head to the share's true head: the last cursor of its
// log, or Earliest-1 when a compaction dropped every entry. A deleted
// share has no log: its record keeps the head it had when deleted.
func setHead(tx *bbolt.Tx, s *sharevat.Share) {
	if !s.Deleted {
		s.Head = max(logHead(tx, s.ID), s.Earliest-1)
	}
}

// logHead is the cursor of the share's last op: the last key of its log
// bucket. The head is derived rather than stored, so an append writes
// only the log, the op-id index and the state, not the share record.
func logHead(tx *bbolt.Tx, id sharevat.ShareID) sharevat.Cursor {
	logs := tx.Bucket(bucketLogs).Bucket([]byte(id))
	if logs == nil {
		return 0
	}
	b := logs.Bucket(bucketLog)
	if b == nil {
		return 0
	}
	if k, _ := b.Cursor().Last(); len(k) == 8 {
		return sharevat.Cursor(binary.BigEndian.Uint64(k))
	}
	return 0
}

// liveShare is getShare that also treats a deleted share as not found.
func liveShare(tx *bbolt.Tx, id sharevat.ShareID) (sharevat.Share, error) {
	s, err := getShare(tx, id)
	if err == nil && s.Deleted {
		return sharevat.Share{}, core.NotFound(id)
	}
	return s, err
}
