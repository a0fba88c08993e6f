package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
)

var _ sharevat.VaultLoader = (*Store)(nil)

// LoadShare implements sharevat.VaultLoader: one transaction writes the
// share row as given (head included), its grants, its log rows, one
// op-id index row per log row and per op a compaction dropped
// (c.Compacted.Ops), and its state and base (digests computed as Append
// computes them), so that a retry of a compacted op is still a
// duplicate at its cursor and a fork from earliest-1 on is exact.
func (st *Store) LoadShare(ctx context.Context, c sharevat.ShareCopy) error {
	if err := checkCompacted(&c); err != nil {
		return err
	}
	return st.update(ctx, "load share", func(tx pgx.Tx) error {
		if err := insertShare(ctx, tx, &c.Share); err != nil {
			return err
		}
		for i := range c.Grants {
			if err := insertGrant(ctx, tx, &c.Grants[i]); err != nil {
				return err
			}
		}
		batch := &pgx.Batch{}
		if len(c.Log) > 0 {
			entries := make([]*sharevat.Entry, len(c.Log))
			for i := range c.Log {
				entries[i] = &c.Log[i]
			}
			queueLog(batch, b(c.Share.ID), entries)
		}
		for _, e := range c.State {
			d := contentDigest(e.Kind, e.Key, e.Body, false)
			batch.Queue(`INSERT INTO state (share, kind, key, body, cursor, at, digest) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
				b(c.Share.ID), b(e.Kind), b(e.Key), nonNil(e.Body), i64(e.Cursor), ns(e.At), d[:])
		}
		queueCompacted(batch, b(c.Share.ID), &c.Compacted)
		return tx.SendBatch(ctx, batch).Close()
	})
}

// LoadGrants implements sharevat.VaultLoader.
func (st *Store) LoadGrants(ctx context.Context, gs []sharevat.Grant) error {
	return st.update(ctx, "load grants", func(tx pgx.Tx) error {
		for i := range gs {
			if err := insertGrant(ctx, tx, &gs[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// LoadAudit implements sharevat.VaultLoader; the identity that numbers
// later records starts after the largest Seq loaded.
func (st *Store) LoadAudit(ctx context.Context, recs []sharevat.AuditRecord) error {
	return st.update(ctx, "load audit", func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for _, r := range recs {
			batch.Queue(`INSERT INTO audit (seq, at, action, share_id, grant_id, parent, scope, epoch, peer, result)
				OVERRIDING SYSTEM VALUE VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)`,
				int64(r.Seq), ns(r.At), b(r.Action), b(r.ShareID), b(r.GrantID), b(r.Parent), int16(r.Scope), i64(r.Epoch), b(r.Peer), b(r.Result))
		}
		batch.Queue(`SELECT setval(pg_get_serial_sequence('audit', 'seq'), greatest((SELECT max(seq) FROM audit), 1))`)
		return tx.SendBatch(ctx, batch).Close()
	})
}
