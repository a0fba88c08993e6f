package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// auditLock is the pg_advisory_xact_lock key Audit holds while it
// inserts ("shva"), so that records commit in seq order even when
// several stores write the audit log at once: a reader paging by seq
// never skips a record that commits later with a smaller seq.
const auditLock = 0x73687661

// Audit appends records durably; the database assigns Seq.
func (st *Store) Audit(ctx context.Context, recs ...sharevat.AuditRecord) error {
	if len(recs) == 0 {
		return nil
	}
	return st.update(ctx, "audit", func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(auditLock)); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for _, r := range recs {
			batch.Queue(`INSERT INTO audit (at, action, share_id, grant_id, parent, scope, epoch, peer, result)
				VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
				ns(r.At), b(r.Action), b(r.ShareID), b(r.GrantID), b(r.Parent), int16(r.Scope), i64(r.Epoch), b(r.Peer), b(r.Result))
		}
		return tx.SendBatch(ctx, batch).Close()
	})
}

// AuditLog returns up to limit records with Seq > after, oldest first;
// with share non-empty, only that share's. Errors: EInvalid for limit <
// 1.
func (st *Store) AuditLog(ctx context.Context, share sharevat.ShareID, after uint64, limit int) (out []sharevat.AuditRecord, err error) {
	if limit < 1 {
		return nil, sharevat.Errorf(sharevat.EInvalid, "audit limit is %d; want at least 1", limit)
	}
	if beyond(after) {
		return nil, nil
	}
	cond, args := "TRUE", []any{int64(after), limit}
	if share != "" {
		cond, args = "share_id = $3", append(args, b(share))
	}
	err = st.view(ctx, "audit log", func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT seq, at, action, share_id, grant_id, parent, scope, epoch, peer, result
			FROM audit WHERE seq > $1 AND `+cond+` ORDER BY seq LIMIT $2`, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, scanAudit)
		return err
	})
	return core.OrZero(out, err)
}

// scanAudit reads one audit row.
func scanAudit(row pgx.CollectableRow) (sharevat.AuditRecord, error) {
	var r sharevat.AuditRecord
	var seq, at, epoch int64
	var scope int16
	err := row.Scan(&seq, &at, sc(&r.Action), sc(&r.ShareID), sc(&r.GrantID), sc(&r.Parent), &scope, &epoch, sc(&r.Peer), sc(&r.Result))
	r.Seq, r.At, r.Scope, r.Epoch = uint64(seq), fromNS(at), sharevat.Scope(scope), sharevat.Epoch(epoch)
	return r, err
}
