package pg

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// shareCols are the columns scanShare reads, in its order.
const shareCols = `id, title, project_id, directory, version, status, created_at, updated_at, status_at,
	epoch, head, earliest, deleted, deleted_at, owner_root, parent_id, fork_cursor, privacy, retain_ops, retain_for, max_bytes`

// scanShare reads one row of shareCols.
func scanShare(row pgx.Row) (sharevat.Share, error) {
	var s sharevat.Share
	var status, privacy int16
	var created, updated, statusAt, epoch, head, earliest, deletedAt, fork, retainOps, retainFor, maxBytes int64
	err := row.Scan(sc(&s.ID), sc(&s.Meta.Title), sc(&s.Meta.ProjectID), sc(&s.Meta.Directory), sc(&s.Meta.Version),
		&status, &created, &updated, &statusAt, &epoch, &head, &earliest, &s.Deleted, &deletedAt,
		sc(&s.OwnerRoot), sc(&s.ParentID), &fork, &privacy, &retainOps, &retainFor, &maxBytes)
	if err != nil {
		return s, err
	}
	s.Meta.Status, s.Meta.CreatedAt, s.Meta.UpdatedAt, s.Meta.StatusAt = sharevat.Status(status), fromNS(created), fromNS(updated), fromNS(statusAt)
	s.Epoch, s.Head, s.Earliest, s.DeletedAt = sharevat.Epoch(epoch), sharevat.Cursor(head), sharevat.Cursor(earliest), fromNS(deletedAt)
	s.ForkCursor, s.MaxBytes = sharevat.Cursor(fork), maxBytes
	s.Settings = sharevat.Settings{Privacy: sharevat.Privacy(privacy), RetainOps: uint64(retainOps), RetainFor: time.Duration(retainFor)}
	return s, nil
}

// getShare loads a share, deleted or not; with lock, it locks its row
// for the rest of the transaction. Errors: ENotFound.
func getShare(ctx context.Context, q querier, id sharevat.ShareID, lock bool) (sharevat.Share, error) {
	sql := "SELECT " + shareCols + " FROM shares WHERE id = $1"
	if lock {
		sql += " FOR UPDATE"
	}
	s, err := scanShare(q.QueryRow(ctx, sql, b(id)))
	if errors.Is(err, pgx.ErrNoRows) {
		return s, core.NotFound(id)
	}
	return s, err
}

// liveShare is getShare that treats a deleted share as not found.
func liveShare(ctx context.Context, q querier, id sharevat.ShareID, lock bool) (sharevat.Share, error) {
	s, err := getShare(ctx, q, id, lock)
	if err == nil && s.Deleted {
		return sharevat.Share{}, core.NotFound(id)
	}
	return s, err
}

// insertShare stores a new share row. Errors: EConflict if the id
// exists or ever existed.
func insertShare(ctx context.Context, q querier, s *sharevat.Share) error {
	tag, err := q.Exec(ctx, `INSERT INTO shares (`+shareCols+`)
		VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21)
		ON CONFLICT (id) DO NOTHING`, shareArgs(s)...)
	if err == nil && tag.RowsAffected() == 0 {
		return sharevat.Errorf(sharevat.EConflict, "share %q already exists", s.ID)
	}
	return err
}

// shareArgs are s's values in shareCols order.
func shareArgs(s *sharevat.Share) []any {
	m := &s.Meta
	return []any{b(s.ID), b(m.Title), b(m.ProjectID), b(m.Directory), b(m.Version), int16(m.Status),
		ns(m.CreatedAt), ns(m.UpdatedAt), ns(m.StatusAt), i64(s.Epoch), i64(s.Head), i64(s.Earliest),
		s.Deleted, ns(s.DeletedAt), b(s.OwnerRoot), b(s.ParentID), i64(s.ForkCursor),
		int16(s.Settings.Privacy), i64(s.Settings.RetainOps), int64(s.Settings.RetainFor), s.MaxBytes}
}

// putShare rewrites every column of an existing share row.
func putShare(ctx context.Context, q querier, s *sharevat.Share) error {
	_, err := q.Exec(ctx, `UPDATE shares SET (`+shareCols+`) =
		($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19,$20,$21) WHERE id = $1`, shareArgs(s)...)
	return err
}

// CreateShare stores s and its owner grant in one transaction.
// Errors: as sharevat.ShareStore.
func (st *Store) CreateShare(ctx context.Context, s sharevat.Share, owner sharevat.Grant) error {
	if err := core.NewShare(&s, &owner); err != nil {
		return err
	}
	return st.update(ctx, "create share", func(tx pgx.Tx) error {
		if err := insertShare(ctx, tx, &s); err != nil {
			return err
		}
		return insertGrant(ctx, tx, &owner)
	})
}

// Share returns one share, deleted or not. Errors: ENotFound.
func (st *Store) Share(ctx context.Context, id sharevat.ShareID) (s sharevat.Share, err error) {
	err = st.view(ctx, "share", func(tx pgx.Tx) error {
		s, err = getShare(ctx, tx, id, false)
		return err
	})
	return core.OrZero(s, err)
}

// Shares lists all shares, deleted ones included, ordered by id.
func (st *Store) Shares(ctx context.Context) (out []sharevat.Share, err error) {
	err = st.view(ctx, "shares", func(tx pgx.Tx) error {
		out, err = queryShares(ctx, tx, "SELECT "+shareCols+" FROM shares ORDER BY id")
		return err
	})
	return core.OrZero(out, err)
}

// queryShares runs a query of shareCols rows.
func queryShares(ctx context.Context, q querier, sql string, args ...any) ([]sharevat.Share, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (sharevat.Share, error) { return scanShare(r) })
}

// UpdateMeta applies patch at now and returns the updated share.
// Errors: ENotFound (also for a deleted share), and those of
// MetaPatch.Apply.
func (st *Store) UpdateMeta(ctx context.Context, id sharevat.ShareID, patch sharevat.MetaPatch, now time.Time) (s sharevat.Share, err error) {
	err = st.update(ctx, "update meta", func(tx pgx.Tx) error {
		if s, err = liveShare(ctx, tx, id, true); err != nil {
			return err
		}
		if err := core.UpdateMeta(&s, patch, now); err != nil {
			return err
		}
		return putShare(ctx, tx, &s)
	})
	return core.OrZero(s, err)
}

// BumpEpoch increments the share's epoch and stores owner as its new
// owner grant, in one transaction. Errors: as sharevat.ShareStore.
func (st *Store) BumpEpoch(ctx context.Context, id sharevat.ShareID, owner sharevat.Grant) (s sharevat.Share, err error) {
	if err := core.CheckNewOwner(id, &owner); err != nil {
		return s, err
	}
	err = st.update(ctx, "bump epoch", func(tx pgx.Tx) error {
		if s, err = liveShare(ctx, tx, id, true); err != nil {
			return err
		}
		if err := core.BumpEpoch(&s, &owner); err != nil {
			return err
		}
		if err := insertGrant(ctx, tx, &owner); err != nil {
			return err
		}
		return putShare(ctx, tx, &s)
	})
	return core.OrZero(s, err)
}

// Settings returns the share's settings. Errors: ENotFound.
func (st *Store) Settings(ctx context.Context, id sharevat.ShareID) (sharevat.Settings, error) {
	s, err := st.liveShare(ctx, "settings", id)
	return s.Settings, err
}

// PutSettings replaces the share's settings. Errors: ENotFound;
// EInvalid for settings no share may have.
func (st *Store) PutSettings(ctx context.Context, id sharevat.ShareID, set sharevat.Settings) (sharevat.Settings, error) {
	if err := core.CheckSettings(set); err != nil {
		return sharevat.Settings{}, err
	}
	err := st.update(ctx, "put settings", func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, "UPDATE shares SET privacy = $2, retain_ops = $3, retain_for = $4 WHERE id = $1 AND NOT deleted",
			b(id), int16(set.Privacy), i64(set.RetainOps), int64(set.RetainFor))
		if err == nil && tag.RowsAffected() == 0 {
			return core.NotFound(id)
		}
		return err
	})
	return core.OrZero(set, err)
}

// liveShare reads one live share in its own transaction.
func (st *Store) liveShare(ctx context.Context, op string, id sharevat.ShareID) (s sharevat.Share, err error) {
	err = st.view(ctx, op, func(tx pgx.Tx) error {
		s, err = liveShare(ctx, tx, id, false)
		return err
	})
	return core.OrZero(s, err)
}
