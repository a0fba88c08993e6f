package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Fork creates s as a fork of share parent at cursor at, with its owner
// grant, in one transaction that holds the parent's row (so no append or
// compaction of the parent runs meanwhile): s's log is a copy of the
// parent's entries up to at, each checked first (checkRange), its op-id
// index the parent's entries up to at, and its state the parent's state
// at at: the parent's state at earliest-1 (its entities older than
// earliest, and base), then the newest version (foldRange) of each key
// in the copied entries. A compacted parent gives a compacted fork (same
// Earliest), whose base holds the state at earliest-1 of the keys whose
// value those entries change. Errors: as sharevat.ShareStore.
func (st *Store) Fork(ctx context.Context, parent sharevat.ShareID, at sharevat.Cursor, s sharevat.Share, owner sharevat.Grant) (sharevat.Share, error) {
	return st.ForkWithin(ctx, parent, at, s, owner, sharevat.ForkQuota{})
}

// ForkWithin is Fork within quota q (sharevat.ShareStore), counted
// while the transaction holds the parent's row and its tree root's,
// which every fork of the tree takes first (forktree.go).
func (st *Store) ForkWithin(ctx context.Context, parent sharevat.ShareID, at sharevat.Cursor, s sharevat.Share, owner sharevat.Grant, q sharevat.ForkQuota) (sharevat.Share, error) {
	if err := core.NewShare(&s, &owner); err != nil {
		return sharevat.Share{}, err
	}
	s.ParentID, s.ForkCursor, s.Head = parent, at, at
	err := st.update(ctx, "fork", func(tx pgx.Tx) error {
		p, err := liveShare(ctx, tx, parent, true)
		if err != nil {
			return err
		}
		if err := core.CheckFork(&p, at); err != nil {
			return err
		}
		charged, err := chargeFork(ctx, tx, parent, at, q)
		if err != nil {
			return err
		}
		s.Earliest = p.Earliest
		if err := insertShare(ctx, tx, &s); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "UPDATE shares SET fork_bytes = $2 WHERE id = $1", b(s.ID), charged); err != nil {
			return err
		}
		if err := insertGrant(ctx, tx, &owner); err != nil {
			return err
		}
		if err := checkRange(ctx, tx, parent, p.Earliest, at); err != nil {
			return err
		}
		return copyLog(ctx, tx, &p, &s)
	})
	return core.OrZero(s, err)
}

// checkForks refuses a fork of parent that already has max live forks.
func checkForks(ctx context.Context, tx pgx.Tx, parent sharevat.ShareID, max int) error {
	if max <= 0 {
		return nil
	}
	var n int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM shares WHERE parent_id = $1 AND NOT deleted", b(parent)).Scan(&n); err != nil {
		return err
	}
	if n >= max {
		return sharevat.ForkQuotaError(n, max)
	}
	return nil
}

// copyLog copies p's op-id index, log and state up to s.ForkCursor into
// s: the fold's reads, then one round trip.
func copyLog(ctx context.Context, tx pgx.Tx, p, s *sharevat.Share) error {
	pid, cid, at, earliest, event := b(p.ID), b(s.ID), int64(s.ForkCursor), int64(p.Earliest), b(sharevat.KindEvent)
	batch := &pgx.Batch{}
	batch.Queue(`INSERT INTO ops (share, op_id, cursor, digest) SELECT $2, op_id, cursor, digest FROM ops
		WHERE share = $1 AND cursor <= $3`, pid, cid, at)
	batch.Queue(`INSERT INTO log (share, cursor, op_id, batch_id, seq, kind, key, body, del, at, digest)
		SELECT $2, cursor, op_id, batch_id, seq, kind, key, body, del, at, digest FROM log
		WHERE share = $1 AND cursor <= $3`, pid, cid, at)
	if p.Earliest > 1 {
		batch.Queue(`INSERT INTO state (share, kind, key, body, cursor, at, digest)
			SELECT $2::bytea, kind, key, body, cursor, at, digest FROM state WHERE share = $1 AND cursor < $3
			UNION ALL SELECT $2::bytea, kind, key, body, cursor, at, digest FROM base WHERE share = $1`, pid, cid, earliest)
		batch.Queue(`INSERT INTO base SELECT * FROM state WHERE share = $2 AND (kind, key) IN
			(SELECT kind, key FROM log WHERE share = $1 AND cursor <= $3 AND kind <> $4)`, pid, cid, at, event)
	}
	ws, err := foldRange(ctx, tx, p.ID, earliest, earliest, at)
	if err != nil {
		return err
	}
	last, args := winnersCTE(ws, 2)
	args = append([]any{cid}, args...)
	batch.Queue(last+` DELETE FROM state USING last WHERE state.share = $1 AND state.kind = last.kind AND state.key = last.key AND last.del`,
		args...)
	batch.Queue(last+` INSERT INTO state (share, kind, key, body, cursor, at, digest)
		SELECT $1, kind, key, body, cursor, at, digest FROM last WHERE NOT del
		ON CONFLICT (share, kind, key) DO UPDATE SET body = excluded.body, cursor = excluded.cursor, at = excluded.at, digest = excluded.digest`,
		args...)
	if p.Earliest > 1 { // a key whose value at earliest-1 is still the newest needs no base copy: the state gives it
		batch.Queue(`DELETE FROM base USING state WHERE base.share = $1 AND state.share = $1
			AND state.kind = base.kind AND state.key = base.key AND state.cursor < $2`, cid, earliest)
	}
	return tx.SendBatch(ctx, batch).Close()
}
