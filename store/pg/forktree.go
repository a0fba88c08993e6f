package pg

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
)

// Fork trees (sharevat.ForkQuota). A share's tree is found by walking
// its parent_id links up to a share that was not forked (treeRoot); its
// charges are the live shares below that root and the fork_bytes each
// recorded when it was made (treeUsage). A fork holds its parent's row
// and then its root's, so the forks of one tree are counted one at a
// time whichever vat makes them.

// maxTreeWalk bounds the walk up to a tree's root, so that corrupt
// parent links that form a cycle end it.
const maxTreeWalk = 1 << 12

// treeRoot is the root of share id's fork tree, its row locked.
func treeRoot(ctx context.Context, tx pgx.Tx, id sharevat.ShareID) (sharevat.ShareID, error) {
	var root []byte
	err := tx.QueryRow(ctx, `WITH RECURSIVE up(id, parent_id, n) AS (
			SELECT id, parent_id, 0 FROM shares WHERE id = $1
			UNION ALL SELECT s.id, s.parent_id, up.n + 1 FROM shares s JOIN up ON s.id = up.parent_id
			WHERE up.parent_id <> ''::bytea AND up.n < $2)
		SELECT id FROM up WHERE parent_id = ''::bytea`, b(id), maxTreeWalk).Scan(&root)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", sharevat.Errorf(sharevat.ECorrupt, "share %q: no root within %d parents", id, maxTreeWalk)
	}
	if err != nil {
		return "", err
	}
	_, err = tx.Exec(ctx, "SELECT 1 FROM shares WHERE id = $1 FOR UPDATE", root)
	return sharevat.ShareID(root), err
}

// treeUsage counts root's live forks and the bytes they are charged.
func treeUsage(ctx context.Context, tx pgx.Tx, root sharevat.ShareID) (forks int, used int64, err error) {
	err = tx.QueryRow(ctx, `WITH RECURSIVE t(id) AS (
			SELECT id FROM shares WHERE parent_id = $1
			UNION SELECT s.id FROM shares s JOIN t ON s.parent_id = t.id)
		SELECT count(*), coalesce(sum(fork_bytes), 0)::bigint FROM shares JOIN t USING (id) WHERE NOT deleted`,
		b(root)).Scan(&forks, &used)
	return forks, used, err
}

// forkBytes is what a fork of parent at cursor at copies: its log rows'
// and op-id index entries' bytes, as sharevat.ForkQuota charges them.
func forkBytes(ctx context.Context, tx pgx.Tx, parent sharevat.ShareID, at sharevat.Cursor) (n int64, err error) {
	err = tx.QueryRow(ctx, `SELECT
			(SELECT coalesce(sum(octet_length(op_id) + octet_length(batch_id) + octet_length(kind) + octet_length(key)
				+ octet_length(body) + octet_length(digest) + 40), 0) FROM log WHERE share = $1 AND cursor <= $2)
			+ (SELECT coalesce(sum(octet_length(op_id) + octet_length(digest) + 8), 0) FROM ops WHERE share = $1 AND cursor <= $2)`,
		b(parent), int64(at)).Scan(&n)
	return n, err
}

// chargeFork refuses a fork of parent at cursor at past q and returns
// the bytes to record as its charge.
func chargeFork(ctx context.Context, tx pgx.Tx, parent sharevat.ShareID, at sharevat.Cursor, q sharevat.ForkQuota) (int64, error) {
	if err := checkForks(ctx, tx, parent, q.MaxForks); err != nil {
		return 0, err
	}
	root, err := treeRoot(ctx, tx, parent)
	if err != nil {
		return 0, err
	}
	forks, used, err := treeUsage(ctx, tx, root)
	if err != nil {
		return 0, err
	}
	if q.MaxTreeForks > 0 && forks >= q.MaxTreeForks {
		return 0, sharevat.TreeForksQuotaError(forks, q.MaxTreeForks)
	}
	need, err := forkBytes(ctx, tx, parent, at)
	if err != nil {
		return 0, err
	}
	if q.MaxTreeBytes > 0 && used+need > q.MaxTreeBytes {
		return 0, sharevat.TreeBytesQuotaError(used, need, q.MaxTreeBytes)
	}
	return need, nil
}
