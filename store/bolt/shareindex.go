package bolt

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// The share indexes of format 3, kept by putShare whenever a share record
// is written (see doc.go):
//
//	share_updated   8-byte ^updatedAt (MaxUint64 − Unix ns) ‖ share id →
//	                empty. Every share, deleted ones too: ListShares walks
//	                it, newest update first, then by id.
//	share_status    share id → version (1) ‖ status (1 byte) ‖ 8-byte
//	                statusAt ‖ title (the rest). Live shares only:
//	                Statuses reads it alone.
//	share_children  uvarint len(parent id) ‖ parent id ‖ 8-byte createdAt
//	                ‖ child id → empty. Live forks under their live
//	                parent, oldest first: Children reads it.
var (
	bucketShareUpdated  = []byte("share_updated")
	bucketShareStatus   = []byte("share_status")
	bucketShareChildren = []byte("share_children")
	shareIndexes        = [][]byte{bucketShareUpdated, bucketShareStatus, bucketShareChildren}
)

// statusFixed is the fixed part of a share_status value.
const statusFixed = 1 + 1 + 8

// updatedKey is s's share_updated key.
func updatedKey(s *sharevat.Share) []byte {
	k := binary.BigEndian.AppendUint64(nil, math.MaxUint64-unixNano(s.Meta.UpdatedAt))
	return append(k, s.ID...)
}

// childKey is s's share_children key under its parent.
func childKey(s *sharevat.Share) []byte {
	return prefixKey(string(s.ParentID), binary.BigEndian.AppendUint64(nil, unixNano(s.Meta.CreatedAt)))
}

// encodeStatus is s's share_status value.
func encodeStatus(s *sharevat.Share) []byte {
	b := []byte{formatVersion, byte(s.Meta.Status)}
	b = binary.BigEndian.AppendUint64(b, unixNano(s.Meta.StatusAt))
	return append(b, s.Meta.Title...)
}

// decodeStatus decodes a share_status key and value.
func decodeStatus(k, v []byte) (sharevat.ShareStatus, error) {
	if len(v) < statusFixed || v[0] != formatVersion {
		return sharevat.ShareStatus{}, corruptf("share_status value of share %q: bad header", k)
	}
	return sharevat.ShareStatus{
		ID: sharevat.ShareID(k), Status: sharevat.Status(v[1]),
		StatusAt: fromUnixNano(binary.BigEndian.Uint64(v[2:])), Title: string(v[statusFixed:]),
	}, nil
}

// putShare writes s's record and brings the share indexes from what old
// (the record as stored before, nil for a new share) put there to what s
// needs.
func putShare(tx *bbolt.Tx, old, s *sharevat.Share) error {
	v, err := encodeShare(s)
	if err != nil {
		return fmt.Errorf("share %q: %w", s.ID, err)
	}
	if err := tx.Bucket(bucketShares).Put([]byte(s.ID), v); err != nil {
		return err
	}
	if old != nil {
		if err := unindexShare(tx, old, s); err != nil {
			return err
		}
	}
	return indexShare(tx, old, s)
}

// unindexShare removes old's index entries that s does not keep.
func unindexShare(tx *bbolt.Tx, old, s *sharevat.Share) error {
	if !old.Meta.UpdatedAt.Equal(s.Meta.UpdatedAt) {
		if err := tx.Bucket(bucketShareUpdated).Delete(updatedKey(old)); err != nil {
			return err
		}
	}
	if s.Deleted && !old.Deleted {
		if err := tx.Bucket(bucketShareStatus).Delete([]byte(s.ID)); err != nil {
			return err
		}
		if old.ParentID != "" {
			return tx.Bucket(bucketShareChildren).Delete(append(childKey(old), old.ID...))
		}
	}
	return nil
}

// indexShare writes the index entries s needs that old lacks.
func indexShare(tx *bbolt.Tx, old, s *sharevat.Share) error {
	if old == nil || !old.Meta.UpdatedAt.Equal(s.Meta.UpdatedAt) {
		if err := tx.Bucket(bucketShareUpdated).Put(updatedKey(s), nil); err != nil {
			return err
		}
	}
	if s.Deleted {
		return nil
	}
	if old == nil || statusChanged(&old.Meta, &s.Meta) {
		if err := tx.Bucket(bucketShareStatus).Put([]byte(s.ID), encodeStatus(s)); err != nil {
			return err
		}
	}
	if old == nil && s.ParentID != "" {
		return tx.Bucket(bucketShareChildren).Put(append(childKey(s), s.ID...), nil)
	}
	return nil
}

func statusChanged(a, b *sharevat.Meta) bool {
	return a.Status != b.Status || !a.StatusAt.Equal(b.StatusAt) || a.Title != b.Title
}

// forEachChildShare calls fn with the id of each live fork of parent,
// oldest first.
func forEachChildShare(tx *bbolt.Tx, parent sharevat.ShareID, fn func(id sharevat.ShareID) error) error {
	prefix := prefixKey(string(parent), nil)
	c := tx.Bucket(bucketShareChildren).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		if len(k) < len(prefix)+8 {
			return corruptf("share_children key of %d bytes under %q", len(k), parent)
		}
		if err := fn(sharevat.ShareID(k[len(prefix)+8:])); err != nil {
			return err
		}
	}
	return nil
}

// buildShareIndexes (re)builds the share indexes from the shares bucket:
// the upgrade of a file of format 1 or 2, which had none.
func buildShareIndexes(tx *bbolt.Tx) error {
	for _, name := range shareIndexes {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return err
			}
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return err
		}
	}
	return tx.Bucket(bucketShares).ForEach(func(k, v []byte) error {
		s, err := decodeShare(v)
		if err != nil {
			return fmt.Errorf("share %q: %w", k, err)
		}
		return indexShare(tx, nil, &s)
	})
}

// touchShare moves s's update time to now (never back) after an append
// applied ops, keeping share_updated in step.
func touchShare(tx *bbolt.Tx, s *sharevat.Share, now time.Time) error {
	if !now.After(s.Meta.UpdatedAt) {
		return nil
	}
	old := *s
	s.Meta.UpdatedAt = now
	return putShare(tx, &old, s)
}
