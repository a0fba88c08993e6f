package pg

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// grantCols are the columns scanGrant reads, in its order.
const grantCols = `id, share_id, parent, scope, epoch, verifier, label, created_by, created_at, expires_at, revoked, revoked_at, last_used`

// scanGrant reads one row of grantCols.
func scanGrant(row pgx.Row) (sharevat.Grant, error) {
	var g sharevat.Grant
	var scope int16
	var epoch, created, expires, revokedAt, lastUsed int64
	err := row.Scan(sc(&g.ID), sc(&g.ShareID), sc(&g.Parent), &scope, &epoch, &g.Verifier, sc(&g.Label), sc(&g.CreatedBy),
		&created, &expires, &g.Revoked, &revokedAt, &lastUsed)
	g.Scope, g.Epoch = sharevat.Scope(scope), sharevat.Epoch(epoch)
	g.CreatedAt, g.ExpiresAt, g.RevokedAt, g.LastUsed = fromNS(created), fromNS(expires), fromNS(revokedAt), fromNS(lastUsed)
	if len(g.Verifier) == 0 {
		g.Verifier = nil
	}
	return g, err
}

// insertGrant stores a new grant. Errors: EConflict if the id exists.
func insertGrant(ctx context.Context, q querier, g *sharevat.Grant) error {
	verifier := g.Verifier
	if verifier == nil {
		verifier = []byte{}
	}
	tag, err := q.Exec(ctx, `INSERT INTO grants (`+grantCols+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)
		ON CONFLICT (id) DO NOTHING`,
		b(g.ID), b(g.ShareID), b(g.Parent), int16(g.Scope), i64(g.Epoch), verifier, b(g.Label), b(g.CreatedBy),
		ns(g.CreatedAt), ns(g.ExpiresAt), g.Revoked, ns(g.RevokedAt), ns(g.LastUsed))
	if err == nil && tag.RowsAffected() == 0 {
		return sharevat.Errorf(sharevat.EConflict, "grant %q already exists", g.ID)
	}
	return err
}

// getGrant loads one grant, locking its row with lock. Errors:
// ENotFound.
func getGrant(ctx context.Context, q querier, id sharevat.GrantID, lock bool) (sharevat.Grant, error) {
	sql := "SELECT " + grantCols + " FROM grants WHERE id = $1"
	if lock {
		sql += " FOR UPDATE"
	}
	g, err := scanGrant(q.QueryRow(ctx, sql, b(id)))
	if errors.Is(err, pgx.ErrNoRows) {
		return g, sharevat.Errorf(sharevat.ENotFound, "grant %q not found", id)
	}
	return g, err
}

// queryGrants runs a query of grantCols rows.
func queryGrants(ctx context.Context, q querier, sql string, args ...any) ([]sharevat.Grant, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (sharevat.Grant, error) { return scanGrant(r) })
}

// CreateGrant stores a new grant. Errors: EConflict if the id exists;
// ENotFound if its share does not exist or is deleted; EInvalid if the
// id is empty.
func (st *Store) CreateGrant(ctx context.Context, g sharevat.Grant) error {
	if g.ID == "" {
		return sharevat.Errorf(sharevat.EInvalid, "grant id must not be empty")
	}
	return st.update(ctx, "create grant", func(tx pgx.Tx) error {
		if !g.IsAdmin() {
			if _, err := liveShare(ctx, tx, g.ShareID, false); err != nil {
				return err
			}
		}
		return insertGrant(ctx, tx, &g)
	})
}

// CreateChild stores g, minted from g.Parent, unless the parent has
// maxLive or more live children at g.CreatedAt. The parent's row is
// locked, so two mints from one parent (through any store on the
// database) count one after the other. Errors: as sharevat.GrantStore.
func (st *Store) CreateChild(ctx context.Context, g sharevat.Grant, maxLive int) error {
	if g.ID == "" || g.Parent == "" {
		return sharevat.Errorf(sharevat.EInvalid, "grant id and parent must not be empty")
	}
	return st.update(ctx, "create child grant", func(tx pgx.Tx) error {
		p, err := getGrant(ctx, tx, g.Parent, true)
		if err != nil {
			return err
		}
		if p.ShareID != g.ShareID {
			return sharevat.Errorf(sharevat.ENotFound, "parent grant %q not found in share %q", g.Parent, g.ShareID)
		}
		if !g.IsAdmin() {
			if _, err := liveShare(ctx, tx, g.ShareID, false); err != nil {
				return err
			}
		}
		if maxLive > 0 {
			var n int
			err := tx.QueryRow(ctx, `SELECT count(*) FROM grants WHERE parent = $1 AND NOT revoked
				AND (expires_at = 0 OR expires_at > $2)`, b(g.Parent), ns(g.CreatedAt)).Scan(&n)
			if err != nil {
				return err
			}
			if n >= maxLive {
				return sharevat.Errorf(sharevat.ETooLarge, "this grant has minted %d live grants (the limit is %d); revoke some first", n, maxLive)
			}
		}
		return insertGrant(ctx, tx, &g)
	})
}

// Grant returns one grant. Errors: ENotFound.
func (st *Store) Grant(ctx context.Context, id sharevat.GrantID) (g sharevat.Grant, err error) {
	err = st.view(ctx, "grant", func(tx pgx.Tx) error {
		g, err = getGrant(ctx, tx, id, false)
		return err
	})
	return core.OrZero(g, err)
}

// Grants lists a share's grants (admin grants for the empty id), by
// creation time, then id.
func (st *Store) Grants(ctx context.Context, share sharevat.ShareID) (out []sharevat.Grant, err error) {
	err = st.view(ctx, "grants", func(tx pgx.Tx) error {
		out, err = queryGrants(ctx, tx, "SELECT "+grantCols+" FROM grants WHERE share_id = $1 ORDER BY created_at, id", b(share))
		return err
	})
	return core.OrZero(out, err)
}

// RevokeGrants marks the grants revoked at at, in one transaction;
// revoked grants keep their first time. Errors: ENotFound if any id is
// unknown (then nothing changes).
func (st *Store) RevokeGrants(ctx context.Context, ids []sharevat.GrantID, at time.Time) error {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	if len(ids) == 0 {
		return nil
	}
	keys := make([][]byte, len(ids))
	for i, id := range ids {
		keys[i] = b(id)
	}
	return st.update(ctx, "revoke grants", func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM grants WHERE id = ANY($1)", keys).Scan(&n); err != nil {
			return err
		}
		if n != len(ids) {
			return sharevat.Errorf(sharevat.ENotFound, "%d of the %d grants to revoke do not exist", len(ids)-n, len(ids))
		}
		return revokeWhere(ctx, tx, "id = ANY($2)", ns(at), keys)
	})
}

// revokeWhere revokes at the time $1 the grants the condition selects
// (its other parameters follow), locking them in id order.
func revokeWhere(ctx context.Context, q querier, cond string, args ...any) error {
	_, err := q.Exec(ctx, `WITH g AS (SELECT id FROM grants WHERE `+cond+` AND NOT revoked ORDER BY id FOR UPDATE)
		UPDATE grants SET revoked = true, revoked_at = $1 FROM g WHERE grants.id = g.id`, args...)
	return err
}

// TouchGrants records last-used times; unknown ids and earlier times
// are ignored.
func (st *Store) TouchGrants(ctx context.Context, used map[sharevat.GrantID]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	ids := slices.Sorted(func(yield func(sharevat.GrantID) bool) {
		for id := range used {
			if !yield(id) {
				return
			}
		}
	})
	keys, times := make([][]byte, len(ids)), make([]int64, len(ids))
	for i, id := range ids {
		keys[i], times[i] = b(id), ns(used[id])
	}
	return st.update(ctx, "touch grants", func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `WITH u AS (SELECT * FROM unnest($1::bytea[], $2::bigint[]) AS u(id, t)),
			g AS (SELECT grants.id, u.t FROM grants JOIN u ON grants.id = u.id WHERE u.t > grants.last_used ORDER BY grants.id FOR UPDATE OF grants)
			UPDATE grants SET last_used = g.t FROM g WHERE grants.id = g.id`, keys, times)
		return err
	})
}

// Subtree returns root and every grant minted below it, by creation
// time, then id. Errors: ENotFound if root does not exist.
func (st *Store) Subtree(ctx context.Context, root sharevat.GrantID) (out []sharevat.Grant, err error) {
	err = st.view(ctx, "subtree", func(tx pgx.Tx) error {
		out, err = queryGrants(ctx, tx, `WITH RECURSIVE t(id) AS (
				SELECT id FROM grants WHERE id = $1
				UNION SELECT g.id FROM grants g JOIN t ON g.parent = t.id)
			SELECT `+prefixed("grants.", grantCols)+` FROM grants JOIN t ON grants.id = t.id ORDER BY grants.created_at, grants.id`, b(root))
		if err == nil && len(out) == 0 {
			err = sharevat.Errorf(sharevat.ENotFound, "grant %q not found", root)
		}
		return err
	})
	return core.OrZero(out, err)
}
