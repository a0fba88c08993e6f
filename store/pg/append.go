package pg

import (
	"context"
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"sharevat"
	"sharevat/store/apply"
)

// Append applies one batch with the append engine (store/apply) in one
// transaction, shared with the concurrent appends of this Store (group
// commit), and returns once that transaction has committed. The batch
// is prepared on the caller's goroutine, outside the group. Errors:
// ENotFound if the share does not exist or is deleted; EInvalid if the
// batch is nil or the limits are invalid.
func (st *Store) Append(ctx context.Context, req sharevat.AppendRequest) (sharevat.Ack, error) {
	if req.Batch == nil {
		return sharevat.Ack{}, sharevat.Errorf(sharevat.EInvalid, "append without a batch")
	}
	if err := req.Limits.Validate(); err != nil {
		return sharevat.Ack{}, err
	}
	if err := ctx.Err(); err != nil {
		return sharevat.Ack{}, fmt.Errorf("pg: append: %w", err)
	}
	if st.closed.Load() {
		return sharevat.Ack{}, errClosed
	}
	call := &appendCall{req: req, prep: apply.Prepare(req.Batch, req.Limits, req.Privacy), wake: make(chan struct{})}
	st.commits.do(call)
	return orZero(call.ack, call.err)
}

// applyGroup applies each call of group in tx: it locks the rows of the
// group's shares (in id order, so that groups of several stores never
// deadlock) and reads the op-id index entries of every op id the group
// names, in one round trip; applies each call over its share's view in
// memory; then writes what they applied, in one more. A call on a share
// that does not exist or is deleted gets ENotFound and writes nothing.
// It stops at the first store failure, which aborts the transaction.
func applyGroup(ctx context.Context, tx pgx.Tx, group []*appendCall) error {
	views, err := openViews(ctx, tx, group)
	if err != nil {
		return err
	}
	for _, call := range group {
		v := views[call.req.Share]
		if v == nil {
			call.ack, call.err = sharevat.Ack{}, notFound(call.req.Share)
			continue
		}
		call.ack, call.err = call.prep.Apply(v, call.req.Now)
		if call.err != nil {
			return call.err
		}
		if call.ack.Applied > 0 {
			v.touch(call.req.Now)
		}
	}
	return flush(ctx, tx, views)
}

// openViews locks the group's share rows and loads the op-id index
// entries its op ids (and dependencies) have, and returns a view of each
// live share.
func openViews(ctx context.Context, tx pgx.Tx, group []*appendCall) (map[sharevat.ShareID]*shareView, error) {
	var ids [][]byte
	var wantShare, wantOp [][]byte
	for _, call := range group {
		ids = append(ids, b(call.req.Share))
		for i := range call.req.Batch.Ops {
			op := &call.req.Batch.Ops[i]
			for _, id := range append([]string{op.OpID}, op.DependsOn...) {
				wantShare, wantOp = append(wantShare, b(call.req.Share)), append(wantOp, b(id))
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
	return views, tx.SendBatch(ctx, batch).Close()
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
