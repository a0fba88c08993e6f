package pg

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/commit"
	"github.com/sharevat/sharevat/store/internal/core"
)

// applyGroup applies each call of group in tx: it locks the rows of the
// group's shares (in id order, so that groups of several stores never
// deadlock) and reads the op-id index entries of every op id the group
// names, in one round trip; applies each call over its share's view in
// memory; then writes what they applied, in one more. A call on a share
// that does not exist or is deleted gets ENotFound and writes nothing.
// It stops at the first store failure, which aborts the transaction.
func applyGroup(ctx context.Context, tx pgx.Tx, group []*commit.Call) error {
	views, err := openViews(ctx, tx, group)
	if err != nil {
		return err
	}
	for _, call := range group {
		v := views[call.Req.Share]
		if v == nil {
			call.Ack, call.Err = sharevat.Ack{}, core.NotFound(call.Req.Share)
			continue
		}
		call.Ack, call.Err = call.Prep.Apply(v, call.Req.Now)
		if call.Err != nil {
			return call.Err
		}
		if call.Ack.Applied > 0 {
			v.touch(call.Req.Now)
		}
	}
	return flush(ctx, tx, views)
}

// openViews locks the group's share rows and loads the op-id index
// entries its op ids (and dependencies) have and the state rows its
// upserts write, and returns a view of each live share.
func openViews(ctx context.Context, tx pgx.Tx, group []*commit.Call) (map[sharevat.ShareID]*shareView, error) {
	var ids [][]byte
	var wantShare, wantOp [][]byte
	var stShare, stKind, stKey [][]byte
	for _, call := range group {
		ids = append(ids, b(call.Req.Share))
		for i := range call.Req.Batch.Ops {
			op := &call.Req.Batch.Ops[i]
			if sharevat.IsStateKind(op.Kind) && !op.Delete {
				stShare, stKind, stKey = append(stShare, b(call.Req.Share)), append(stKind, b(op.Kind)), append(stKey, b(op.Key))
			}
			for _, id := range append([]string{op.OpID}, op.DependsOn...) {
				wantShare, wantOp = append(wantShare, b(call.Req.Share)), append(wantOp, b(id))
			}
		}
	}
	slices.SortFunc(ids, func(x, y []byte) int { return slices.Compare(x, y) })
	batch := &pgx.Batch{}
	views := map[sharevat.ShareID]*shareView{}
	batch.Queue("SELECT "+shareCols+" FROM shares WHERE id = ANY($1) ORDER BY id FOR UPDATE", ids).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			s, err := scanShare(rows)
			if err != nil {
				return err
			}
			if !s.Deleted {
				views[s.ID] = newShareView(s)
			}
		}
		return rows.Err()
	})
	batch.Queue(`SELECT DISTINCT o.share, o.op_id, o.cursor, o.digest, l.op_id, l.digest
		FROM unnest($1::bytea[], $2::bytea[]) AS w(share, op_id)
		JOIN ops o ON o.share = w.share AND o.op_id = w.op_id
		LEFT JOIN log l ON l.share = o.share AND l.cursor = o.cursor`, wantShare, wantOp).Query(func(rows pgx.Rows) error {
		return scanIndexed(rows, views)
	})
	if len(stKey) > 0 {
		batch.Queue(`SELECT DISTINCT s.share, s.kind, s.key, s.body FROM unnest($1::bytea[], $2::bytea[], $3::bytea[]) AS w(share, kind, key)
			JOIN state s ON s.share = w.share AND s.kind = w.kind AND s.key = w.key`, stShare, stKind, stKey).Query(func(rows pgx.Rows) error {
			return scanCurrent(rows, views)
		})
	}
	return views, tx.SendBatch(ctx, batch).Close()
}

// scanCurrent files each state row under its share's view: the bodies
// the group's upserts are weighed against (apply.Supersedes).
func scanCurrent(rows pgx.Rows, views map[sharevat.ShareID]*shareView) error {
	for rows.Next() {
		var share sharevat.ShareID
		var kind, key string
		var body []byte
		if err := rows.Scan(sc(&share), sc(&kind), sc(&key), &body); err != nil {
			return err
		}
		if v := views[share]; v != nil {
			v.current[kind+"\x00"+key] = body
		}
	}
	return rows.Err()
}

// scanIndexed files each op-id index row under its share's view.
func scanIndexed(rows pgx.Rows, views map[sharevat.ShareID]*shareView) error {
	for rows.Next() {
		var share sharevat.ShareID
		var opID string
		var ix indexed
		var logOp *[]byte
		if err := rows.Scan(sc(&share), sc(&opID), &ix.cursor, &ix.digest, &logOp, &ix.logDigest); err != nil {
			return err
		}
		if logOp != nil {
			ix.inLog, ix.logOp = true, string(*logOp)
		}
		if v := views[share]; v != nil {
			v.known[opID] = ix
		}
	}
	return rows.Err()
}
