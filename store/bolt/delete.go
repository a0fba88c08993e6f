package bolt

import (
	"bytes"
	"context"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// Delete deletes share id at time at, in one transaction: the share
// record stays, marked deleted with its head as it was (so its id is
// never reused and Share and Shares still list it); every grant of it is
// revoked at at; its logs/<id> bucket (log, op-id index, state, base) is
// dropped, which frees its pages for reuse; it leaves share_status and
// its parent's share_children and its tree's fork_tree charges. Its own
// forks live on; its audit records stay. Errors: ENotFound if it does not exist or is already deleted.
func (db *DB) Delete(ctx context.Context, id sharevat.ShareID, at time.Time) error {
	return db.updateFlushed(ctx, "delete share", func(tx *bbolt.Tx) error {
		s, err := liveShare(tx, id)
		if err != nil {
			return err
		}
		if err := revokeShareGrants(tx, id, at); err != nil {
			return err
		}
		if err := tx.Bucket(bucketLogs).DeleteBucket([]byte(id)); err != nil {
			return err
		}
		if err := unchargeFork(tx, &s); err != nil {
			return err
		}
		old := s
		s.Deleted, s.DeletedAt = true, at
		return putShare(tx, &old, &s)
	})
}

// revokeShareGrants revokes every grant of share id at at.
func revokeShareGrants(tx *bbolt.Tx, id sharevat.ShareID, at time.Time) error {
	prefix := prefixKey(string(id), nil)
	var ids []sharevat.GrantID
	c := tx.Bucket(bucketShareGrants).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
		ids = append(ids, sharevat.GrantID(k[len(prefix):]))
	}
	for _, g := range ids {
		if err := revokeGrant(tx, g, at); err != nil {
			return err
		}
	}
	return nil
}
