package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
)

// The keyset queries of StatePage: from the cursor, in the page's order,
// at most $3 rows (read one by one until the page's byte bound).
const (
	pageByKeyFirst = "SELECT kind, key, body, cursor, at, digest FROM state WHERE share = $1 ORDER BY kind, key LIMIT $2"
	pageByKey      = "SELECT kind, key, body, cursor, at, digest FROM state WHERE share = $1 AND (kind, key) > ($3, $4) ORDER BY kind, key LIMIT $2"
	pageByChange   = "SELECT kind, key, body, cursor, at, digest FROM state WHERE share = $1 AND ($3 = 0 OR cursor < $3) ORDER BY cursor DESC LIMIT $2"
)

// StatePage returns one page of the materialized state (see
// sharevat.LogStore) with a keyset query from req.After, reading rows
// until the page's bound; each entity is checked against its digest.
func (st *Store) StatePage(ctx context.Context, id sharevat.ShareID, req sharevat.StatePageRequest) (page sharevat.StatePage, err error) {
	if req.Order > sharevat.ByChange {
		return page, sharevat.Errorf(sharevat.EInvalid, "unknown state order %d", req.Order)
	}
	err = st.view(ctx, "state page", func(tx pgx.Tx) error {
		s, err := liveShare(ctx, tx, id, false)
		if err != nil {
			return err
		}
		page, err = statePage(ctx, tx, id, req)
		page.Head = s.Head
		return err
	})
	if err != nil {
		return sharevat.StatePage{}, err
	}
	return page, nil
}

func statePage(ctx context.Context, tx pgx.Tx, id sharevat.ShareID, req sharevat.StatePageRequest) (sharevat.StatePage, error) {
	count, _ := req.Bounds()
	page := sharevat.StatePage{Next: req.After}
	q, args := pageByKeyFirst, []any{b(id), count + 1}
	switch {
	case req.Order == sharevat.ByChange:
		q, args = pageByChange, append(args, int64(req.After.Cursor))
	case req.After.Kind != "" || req.After.Key != "":
		q, args = pageByKey, append(args, b(req.After.Kind), b(req.After.Key))
	}
	rows, err := tx.Query(ctx, q, args...)
	if err != nil {
		return page, err
	}
	defer rows.Close()
	used := 0
	for rows.Next() {
		e, err := scanEntity(rows, id)
		if err != nil {
			return page, err
		}
		size := sharevat.EntitySize(&e)
		if !req.Fits(len(page.Entities), used, size) {
			return page, nil
		}
		used += size
		page.Entities = append(page.Entities, e)
		page.Next = sharevat.StateCursor{Kind: e.Kind, Key: e.Key, Cursor: e.Cursor}
	}
	page.Done = true
	return page, rows.Err()
}
