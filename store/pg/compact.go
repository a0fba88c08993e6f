package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// digestSQL is apply.Digest computed by PostgreSQL over a log row:
// SHA-256 of u64be(len(kind)) ‖ kind ‖ u64be(len(key)) ‖ key ‖ delete
// byte ‖ body.
const digestSQL = `sha256(int8send(length(kind)::bigint) || kind || int8send(length(key)::bigint) || key ||
	CASE WHEN del THEN '\x01'::bytea ELSE '\x00'::bytea END || body)`

// checkRange checks the log rows [from, to] of share id before they are
// copied or compacted: every cursor is there and every row matches its
// digest.
func checkRange(ctx context.Context, q querier, id sharevat.ShareID, from, to sharevat.Cursor) error {
	if to < from {
		return nil
	}
	var n int64
	var bad *int64
	err := q.QueryRow(ctx, `SELECT count(*), min(cursor) FILTER (WHERE digest <> `+digestSQL+`)
		FROM log WHERE share = $1 AND cursor BETWEEN $2 AND $3`, b(id), int64(from), int64(to)).Scan(&n, &bad)
	switch {
	case err != nil:
		return err
	case bad != nil:
		return core.BadRecordf(id, sharevat.Cursor(*bad), "content does not match its digest")
	case n != int64(to-from+1):
		return core.BadRecordf(id, from, "the log lacks %d of the cursors %d to %d", int64(to-from+1)-n, from, to)
	}
	return nil
}

// Compact drops the log entries with cursor < before and returns the
// share's earliest readable cursor, which becomes before. The op-id
// index stays whole; the state stays exact, and base keeps the state at
// before-1 of every key written since (see the package doc), all in one
// transaction that holds the share's row. Errors: ENotFound (also for a
// deleted share); EInvalid if before > head+1.
func (st *Store) Compact(ctx context.Context, id sharevat.ShareID, before sharevat.Cursor) (earliest sharevat.Cursor, err error) {
	err = st.update(ctx, "compact", func(tx pgx.Tx) error {
		s, err := liveShare(ctx, tx, id, true)
		if err != nil {
			return err
		}
		earliest = s.Earliest
		if drop, err := core.CheckCompact(&s, before); err != nil || !drop {
			return err
		}
		if err := checkRange(ctx, tx, id, s.Earliest, before-1); err != nil {
			return err
		}
		earliest = before
		return compactLog(ctx, tx, &s, before)
	})
	return core.OrZero(earliest, err)
}

// compactLog moves s to earliest before: base forgets the keys the state
// itself now gives (their newest version is before before), takes the
// value at before-1 (foldRange) of each key the dropped entries wrote
// and written again since, and the entries go.
func compactLog(ctx context.Context, tx pgx.Tx, s *sharevat.Share, before sharevat.Cursor) error {
	id, from, to := b(s.ID), int64(s.Earliest), int64(before)
	ws, err := foldRange(ctx, tx, s.ID, from, from, to-1)
	if err != nil {
		return err
	}
	last, args := winnersCTE(ws, 3)
	args = append([]any{id, to}, args...)
	need := last + `, need AS (
			SELECT last.* FROM last LEFT JOIN state s ON s.share = $1 AND s.kind = last.kind AND s.key = last.key
			WHERE s.cursor IS NULL OR s.cursor >= $2)`
	batch := &pgx.Batch{}
	batch.Queue(`DELETE FROM base USING state WHERE base.share = $1 AND state.share = $1
		AND state.kind = base.kind AND state.key = base.key AND state.cursor < $2`, id, to)
	batch.Queue(need+` DELETE FROM base USING need WHERE base.share = $1 AND base.kind = need.kind AND base.key = need.key AND need.del`,
		args...)
	batch.Queue(need+` INSERT INTO base (share, kind, key, body, cursor, at, digest)
		SELECT $1, kind, key, body, cursor, at, digest FROM need WHERE NOT del
		ON CONFLICT (share, kind, key) DO UPDATE SET body = excluded.body, cursor = excluded.cursor, at = excluded.at, digest = excluded.digest`,
		args...)
	batch.Queue("DELETE FROM log WHERE share = $1 AND cursor >= $2 AND cursor < $3", id, from, to)
	batch.Queue("UPDATE shares SET earliest = $2 WHERE id = $1", id, to)
	return tx.SendBatch(ctx, batch).Close()
}
