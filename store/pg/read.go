package pg

import (
	"bytes"
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Read returns up to limit entries with cursor > after, in cursor order,
// and the share's head, from one snapshot of the database. Each entry is
// checked before it is served: its digest against its content, its op
// id against the op-id index, its cursor against its place.
// Errors: ENotFound (also for a deleted share); EInvalid for limit < 1;
// ECompacted if after+1 is before the share's earliest cursor.
func (st *Store) Read(ctx context.Context, id sharevat.ShareID, after sharevat.Cursor, limit int) (out []sharevat.Entry, head sharevat.Cursor, err error) {
	if limit < 1 {
		return nil, 0, sharevat.Errorf(sharevat.EInvalid, "read limit is %d; want at least 1", limit)
	}
	err = st.view(ctx, "read", func(tx pgx.Tx) error {
		s, err := liveShare(ctx, tx, id, false)
		head = s.Head
		if err != nil || after >= head {
			return err
		}
		if after+1 < s.Earliest {
			return core.Compacted(s.Earliest)
		}
		out, err = readEntries(ctx, tx, id, after, min(uint64(limit), uint64(head-after)))
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, head, nil
}

// readEntries reads and checks n entries of share id after cursor after.
func readEntries(ctx context.Context, q querier, id sharevat.ShareID, after sharevat.Cursor, n uint64) ([]sharevat.Entry, error) {
	rows, err := q.Query(ctx, `SELECT l.cursor, l.op_id, l.batch_id, l.seq, l.kind, l.key, l.body, l.del, l.at, l.digest, o.cursor, o.digest
		FROM log l LEFT JOIN ops o ON o.share = l.share AND o.op_id = l.op_id
		WHERE l.share = $1 AND l.cursor > $2 ORDER BY l.cursor LIMIT $3`, b(id), int64(after), int64(n))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]sharevat.Entry, 0, n)
	for rows.Next() {
		e, err := scanEntry(rows, id, after+1+sharevat.Cursor(len(out)))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if uint64(len(out)) != n {
		return nil, core.BadRecordf(id, after+1+sharevat.Cursor(len(out)), "the log lacks a cursor below its head")
	}
	return out, nil
}

// scanEntry reads one row of readEntries and checks it: it must be at
// cursor want, match its digest, and be where the op-id index puts it.
func scanEntry(rows pgx.Rows, id sharevat.ShareID, want sharevat.Cursor) (sharevat.Entry, error) {
	var e sharevat.Entry
	var cursor, seq, at int64
	var digest, ixDigest []byte
	var ixCursor *int64
	err := rows.Scan(&cursor, sc(&e.OpID), sc(&e.BatchID), &seq, sc(&e.Kind), sc(&e.Key), &e.Body, &e.Delete, &at, &digest, &ixCursor, &ixDigest)
	if err != nil {
		return e, err
	}
	e.Cursor, e.Seq, e.At = sharevat.Cursor(cursor), uint32(seq), fromNS(at)
	if e.Cursor != want {
		return e, core.BadRecordf(id, want, "the log lacks this cursor")
	}
	if e.Digest, err = digestOf(id, e.Cursor, digest); err != nil {
		return e, err
	}
	switch {
	case contentDigest(e.Kind, e.Key, e.Body, e.Delete) != e.Digest:
		return e, core.BadRecordf(id, e.Cursor, "content does not match its digest")
	case ixCursor == nil:
		return e, core.BadRecordf(id, e.Cursor, "its op id is not in the op-id index")
	case *ixCursor != cursor || !bytes.Equal(ixDigest, digest):
		return e, core.BadRecordf(id, e.Cursor, "the op-id index puts its op id at cursor %d or with another digest", *ixCursor)
	}
	return e, nil
}

// Snapshot returns the materialized state, ordered by (kind, key), and
// the head it reflects, from one snapshot of the database; each entity
// is checked against its digest. Errors: ENotFound.
func (st *Store) Snapshot(ctx context.Context, id sharevat.ShareID) (out []sharevat.Entity, head sharevat.Cursor, err error) {
	err = st.view(ctx, "snapshot", func(tx pgx.Tx) error {
		s, err := liveShare(ctx, tx, id, false)
		if err != nil {
			return err
		}
		head = s.Head
		rows, err := tx.Query(ctx, "SELECT kind, key, body, cursor, at, digest FROM state WHERE share = $1 ORDER BY kind, key", b(id))
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (sharevat.Entity, error) { return scanEntity(r, id) })
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return out, head, nil
}

// scanEntity reads one state row and checks it against its digest.
func scanEntity(row pgx.Row, id sharevat.ShareID) (sharevat.Entity, error) {
	var e sharevat.Entity
	var cursor, at int64
	var digest []byte
	if err := row.Scan(sc(&e.Kind), sc(&e.Key), &e.Body, &cursor, &at, &digest); err != nil {
		return e, err
	}
	e.Cursor, e.At = sharevat.Cursor(cursor), fromNS(at)
	d, err := digestOf(id, e.Cursor, digest)
	if err == nil && contentDigest(e.Kind, e.Key, e.Body, false) != d {
		err = core.BadRecordf(id, e.Cursor, "entity %s/%q: content does not match its digest", e.Kind, e.Key)
	}
	return e, err
}
