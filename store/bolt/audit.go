package bolt

import (
	"bytes"
	"context"
	"fmt"
	"math"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Audit appends records durably, in order; the store assigns each a Seq
// from one counter shared by all shares.
func (db *DB) Audit(ctx context.Context, recs ...sharevat.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	return db.update(ctx, "audit", func(tx *bbolt.Tx) error {
		b, idx := tx.Bucket(bucketAudit), tx.Bucket(bucketAuditShare)
		b.FillPercent = 1 // keys only ever grow
		for i := range recs {
			if err := putAudit(b, idx, recs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// putAudit stores r under the next sequence number and indexes it.
func putAudit(b, idx *bbolt.Bucket, r sharevat.AuditRecord) error {
	seq, err := b.NextSequence()
	if err != nil {
		return err
	}
	r.Seq = seq
	v, err := encodeAudit(&r)
	if err != nil {
		return fmt.Errorf("audit %d: %w", seq, err)
	}
	if err := b.Put(u64Key(seq), v); err != nil || r.ShareID == "" {
		return err
	}
	return idx.Put(prefixKey(string(r.ShareID), u64Key(seq)), []byte{})
}

// AuditLog returns up to limit records with Seq > after, oldest first;
// with share non-empty, only that share's records. Errors: EInvalid for
// limit < 1.
func (db *DB) AuditLog(ctx context.Context, share sharevat.ShareID, after uint64, limit int) (out []sharevat.AuditRecord, err error) {
	if limit < 1 {
		return nil, sharevat.Errorf(sharevat.EInvalid, "audit limit is %d; want at least 1", limit)
	}
	if after == math.MaxUint64 {
		return nil, nil
	}
	err = db.view(ctx, "audit log", func(tx *bbolt.Tx) error {
		if share == "" {
			out, err = scanAudit(tx.Bucket(bucketAudit), after, limit)
		} else {
			out, err = scanAuditIndex(tx, share, after, limit)
		}
		return err
	})
	return core.OrZero(out, err)
}

// scanAudit reads records with seq > after from the audit bucket.
func scanAudit(b *bbolt.Bucket, after uint64, limit int) (out []sharevat.AuditRecord, err error) {
	c := b.Cursor()
	for k, v := c.Seek(u64Key(after + 1)); k != nil && len(out) < limit; k, v = c.Next() {
		r, err := decodeAudit(v)
		if err != nil {
			return nil, fmt.Errorf("audit %x: %w", k, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// scanAuditIndex reads one share's records with seq > after.
func scanAuditIndex(tx *bbolt.Tx, share sharevat.ShareID, after uint64, limit int) (out []sharevat.AuditRecord, err error) {
	prefix := prefixKey(string(share), nil)
	b, c := tx.Bucket(bucketAudit), tx.Bucket(bucketAuditShare).Cursor()
	for k, _ := c.Seek(prefixKey(string(share), u64Key(after+1))); k != nil && bytes.HasPrefix(k, prefix) && len(out) < limit; k, _ = c.Next() {
		v := b.Get(k[len(prefix):])
		r, err := decodeAudit(v)
		if err != nil {
			return nil, fmt.Errorf("audit index %x: %w", k, err)
		}
		out = append(out, r)
	}
	return out, nil
}
