package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

var _ sharevat.CompactedReader = (*Store)(nil)

// ReadCompacted implements sharevat.CompactedReader: what the
// compactions of share id kept beyond its log — the op-id index rows of
// cursors below its earliest, in op-id order, and its base rows, each
// checked against its digest — from one snapshot of the database. A
// share never compacted has neither. Errors: ENotFound (also for a
// deleted share); ECorrupt if an index row names a cursor outside
// 1..head or the rows below earliest are not earliest-1.
func (st *Store) ReadCompacted(ctx context.Context, id sharevat.ShareID) (c sharevat.Compacted, err error) {
	err = st.view(ctx, "read compacted", func(tx pgx.Tx) error {
		s, err := liveShare(ctx, tx, id, false)
		if err != nil {
			return err
		}
		c = sharevat.Compacted{Earliest: s.Earliest}
		if s.Earliest <= 1 {
			return nil
		}
		if c.Ops, err = compactedOps(ctx, tx, &s); err != nil {
			return err
		}
		rows, err := tx.Query(ctx, "SELECT kind, key, body, cursor, at, digest FROM base WHERE share = $1 ORDER BY kind, key", b(id))
		if err != nil {
			return err
		}
		c.Base, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (sharevat.Entity, error) { return scanEntity(r, id) })
		return err
	})
	if err != nil {
		return sharevat.Compacted{}, err
	}
	return c, nil
}

// compactedOps reads s's op-id index rows below its earliest cursor.
func compactedOps(ctx context.Context, tx pgx.Tx, s *sharevat.Share) ([]sharevat.IndexedOp, error) {
	rows, err := tx.Query(ctx, "SELECT op_id, cursor, digest FROM ops WHERE share = $1 AND cursor < $2 ORDER BY op_id", b(s.ID), int64(s.Earliest))
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (sharevat.IndexedOp, error) {
		var ix sharevat.IndexedOp
		var cursor int64
		var digest []byte
		if err := r.Scan(sc(&ix.OpID), &cursor, &digest); err != nil {
			return ix, err
		}
		ix.Cursor = sharevat.Cursor(cursor)
		if cursor < 1 {
			return ix, core.BadRecordf(s.ID, ix.Cursor, "the op-id index puts op id %q at cursor %d", ix.OpID, cursor)
		}
		return indexedOf(s.ID, ix.OpID, ix.Cursor, digest)
	})
	if err == nil && len(out) != int(s.Earliest-1) {
		err = core.BadRecordf(s.ID, 0, "the op-id index holds %d op ids below cursor %d, not %d", len(out), s.Earliest, s.Earliest-1)
	}
	return out, err
}
