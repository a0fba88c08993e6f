package pg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
)

// Delete deletes share id at time at, in one transaction that holds its
// row: the row stays, marked deleted with its head as it was (its id is
// never reused; Share and Shares still list it); every grant of it is
// revoked at at; its log, op-id index, state and base rows are removed.
// Its forks live on; its audit records stay. Errors: ENotFound if it
// does not exist or is already deleted.
func (st *Store) Delete(ctx context.Context, id sharevat.ShareID, at time.Time) error {
	return st.update(ctx, "delete share", func(tx pgx.Tx) error {
		if _, err := liveShare(ctx, tx, id, true); err != nil {
			return err
		}
		if err := revokeWhere(ctx, tx, "share_id = $2", ns(at), b(id)); err != nil {
			return err
		}
		batch := &pgx.Batch{}
		for _, table := range []string{"log", "ops", "state", "base"} {
			batch.Queue("DELETE FROM "+table+" WHERE share = $1", b(id))
		}
		batch.Queue("UPDATE shares SET deleted = true, deleted_at = $2 WHERE id = $1", b(id), ns(at))
		return tx.SendBatch(ctx, batch).Close()
	})
}
