package pg

import (
	"context"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// The folds of a log range into state that fork and compaction run (an
// append folds its own entries: queueState). Each keeps, for every key
// the range writes, its newest version by apply.Supersedes — the one
// version rule — starting from the key's value before the range: its
// base row, else its state row if that is of a compacted op (cursor <
// earliest), else none. A delete resets the key.

// winner is one key's value after a fold: the log row that gives it, or
// a delete.
type winner struct {
	kind, key  []byte
	body       []byte
	cursor, at int64
	digest     []byte
	del        bool
}

// foldRange folds share id's log rows [from, to] of state kinds over
// their keys' values before from (earliest is the share's earliest
// cursor), and returns the winner of each key the range writes, in
// (kind, key) order.
func foldRange(ctx context.Context, tx pgx.Tx, id sharevat.ShareID, earliest, from, to int64) ([]winner, error) {
	won := map[string]*winner{}
	if earliest > 1 {
		if err := foldQuery(ctx, tx, won, `SELECT kind, key, body, cursor, at, digest, false FROM base WHERE share = $1
			AND (kind, key) IN (SELECT kind, key FROM log WHERE share = $1 AND cursor >= $2 AND cursor <= $3)
			UNION ALL SELECT kind, key, body, cursor, at, digest, false FROM state WHERE share = $1 AND cursor < $4
			AND (kind, key) IN (SELECT kind, key FROM log WHERE share = $1 AND cursor >= $2 AND cursor <= $3)
			AND (kind, key) NOT IN (SELECT kind, key FROM base WHERE share = $1)`, b(id), from, to, earliest); err != nil {
			return nil, err
		}
	}
	if err := foldQuery(ctx, tx, won, `SELECT kind, key, body, cursor, at, digest, del FROM log
		WHERE share = $1 AND cursor >= $2 AND cursor <= $3 AND kind <> $4 ORDER BY cursor`, b(id), from, to, b(sharevat.KindEvent)); err != nil {
		return nil, err
	}
	out := make([]winner, 0, len(won))
	for _, w := range won {
		out = append(out, *w)
	}
	slices.SortFunc(out, func(x, y winner) int {
		if c := slices.Compare(x.kind, y.kind); c != 0 {
			return c
		}
		return slices.Compare(x.key, y.key)
	})
	return out, nil
}

// foldQuery folds the rows of sql, in their order, into won.
func foldQuery(ctx context.Context, tx pgx.Tx, won map[string]*winner, sql string, args ...any) error {
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var w winner
		if err := rows.Scan(&w.kind, &w.key, &w.body, &w.cursor, &w.at, &w.digest, &w.del); err != nil {
			return err
		}
		k := string(w.kind) + "\x00" + string(w.key)
		if old := won[k]; old != nil && !w.del && !old.del && !apply.Supersedes(w.body, old.body) {
			continue
		}
		won[k] = &w
	}
	return rows.Err()
}

// winnersCTE is a WITH clause naming ws "last" (kind, key, body, cursor,
// at, digest, del), its arguments numbered from $n.
func winnersCTE(ws []winner, n int) (string, []any) {
	var kinds, keys, bodies, digests [][]byte
	var cursors, ats []int64
	var dels []bool
	for _, w := range ws {
		kinds, keys, bodies, digests = append(kinds, w.kind), append(keys, w.key), append(bodies, nonNil(w.body)), append(digests, w.digest)
		cursors, ats, dels = append(cursors, w.cursor), append(ats, w.at), append(dels, w.del)
	}
	p := func(i int) string { return "$" + strconv.Itoa(n+i) }
	sql := `WITH last AS (SELECT * FROM unnest(` + p(0) + `::bytea[], ` + p(1) + `::bytea[], ` + p(2) + `::bytea[], ` +
		p(3) + `::bigint[], ` + p(4) + `::bigint[], ` + p(5) + `::bytea[], ` + p(6) + `::bool[]) AS w(kind, key, body, cursor, at, digest, del))`
	return sql, []any{kinds, keys, bodies, cursors, ats, digests, dels}
}
