package pg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// flush writes what the group's views applied, in one round trip: for
// each share, its log rows, its op-id index rows, the base copies of
// compacted entities about to change, the state's newest version of
// each (kind, key), and its head and update time.
func flush(ctx context.Context, tx pgx.Tx, views map[sharevat.ShareID]*shareView) error {
	batch := &pgx.Batch{}
	for _, v := range views {
		if len(v.entries) > 0 {
			queueEntries(batch, v)
		}
	}
	if batch.Len() == 0 {
		return nil
	}
	return tx.SendBatch(ctx, batch).Close()
}

// queueEntries queues the writes of one share's new entries.
func queueEntries(batch *pgx.Batch, v *shareView) {
	id := b(v.s.ID)
	queueLog(batch, id, v.entries)
	queueState(batch, v)
	batch.Queue("UPDATE shares SET head = $2, updated_at = greatest(updated_at, $3) WHERE id = $1", id, int64(v.s.Head), ns(v.now))
}

// queueLog queues the log rows and op-id index rows of entries.
func queueLog(batch *pgx.Batch, id []byte, entries []*sharevat.Entry) {
	n := len(entries)
	var (
		cursors, seqs, ats     = make([]int64, n), make([]int64, n), make([]int64, n)
		opIDs, batchIDs, kinds = make([][]byte, n), make([][]byte, n), make([][]byte, n)
		keys, bodies, digests  = make([][]byte, n), make([][]byte, n), make([][]byte, n)
		dels                   = make([]bool, n)
	)
	for i, e := range entries {
		cursors[i], seqs[i], ats[i] = int64(e.Cursor), int64(e.Seq), ns(e.At)
		opIDs[i], batchIDs[i], kinds[i] = b(e.OpID), b(e.BatchID), b(e.Kind)
		keys[i], bodies[i], digests[i], dels[i] = b(e.Key), nonNil(e.Body), e.Digest[:], e.Delete
	}
	batch.Queue(`INSERT INTO log (share, cursor, op_id, batch_id, seq, kind, key, body, del, at, digest)
		SELECT $1, * FROM unnest($2::bigint[], $3::bytea[], $4::bytea[], $5::bigint[], $6::bytea[], $7::bytea[],
			$8::bytea[], $9::bool[], $10::bigint[], $11::bytea[])`,
		id, cursors, opIDs, batchIDs, seqs, kinds, keys, bodies, dels, ats, digests)
	batch.Queue(`INSERT INTO ops (share, op_id, cursor, digest) SELECT $1, * FROM unnest($2::bytea[], $3::bigint[], $4::bytea[])`,
		id, opIDs, cursors, digests)
}

// queueState queues the state writes of one share's new entries: each
// (kind, key) ends on its newest version (apply.Supersedes, over the
// state's body the view loaded), or removed by a delete. Before a
// compacted entity changes, its value is kept in base (see the package
// doc).
func queueState(batch *pgx.Batch, v *shareView) {
	type ek struct{ kind, key string }
	last := map[ek]*sharevat.Entry{}
	var order []ek
	for _, e := range v.entries {
		if !sharevat.IsStateKind(e.Kind) {
			continue
		}
		k := ek{e.Kind, e.Key}
		cur, has := v.current[e.Kind+"\x00"+e.Key]
		if l, ok := last[k]; ok {
			cur, has = l.Body, !l.Delete
		}
		if !e.Delete && has && !apply.Supersedes(e.Body, cur) {
			continue
		}
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = e
	}
	if len(order) == 0 {
		return
	}
	id := b(v.s.ID)
	var allKinds, allKeys, putKinds, putKeys, bodies, digests, delKinds, delKeys [][]byte
	var cursors, ats []int64
	for _, k := range order {
		e := last[k]
		allKinds, allKeys = append(allKinds, b(k.kind)), append(allKeys, b(k.key))
		if e.Delete {
			delKinds, delKeys = append(delKinds, b(k.kind)), append(delKeys, b(k.key))
			continue
		}
		putKinds, putKeys, bodies = append(putKinds, b(k.kind)), append(putKeys, b(k.key)), append(bodies, nonNil(e.Body))
		digests, cursors, ats = append(digests, e.Digest[:]), append(cursors, int64(e.Cursor)), append(ats, ns(e.At))
	}
	if v.s.Earliest > 1 {
		batch.Queue(`INSERT INTO base SELECT * FROM state
			WHERE share = $1 AND (kind, key) IN (SELECT * FROM unnest($2::bytea[], $3::bytea[])) AND cursor < $4
			ON CONFLICT DO NOTHING`, id, allKinds, allKeys, int64(v.s.Earliest))
	}
	if len(delKinds) > 0 {
		batch.Queue(`DELETE FROM state WHERE share = $1 AND (kind, key) IN (SELECT * FROM unnest($2::bytea[], $3::bytea[]))`,
			id, delKinds, delKeys)
	}
	if len(putKinds) > 0 {
		batch.Queue(`INSERT INTO state (share, kind, key, body, cursor, at, digest)
			SELECT $1, * FROM unnest($2::bytea[], $3::bytea[], $4::bytea[], $5::bigint[], $6::bigint[], $7::bytea[])
			ON CONFLICT (share, kind, key) DO UPDATE SET body = excluded.body, cursor = excluded.cursor, at = excluded.at, digest = excluded.digest`,
			id, putKinds, putKeys, bodies, cursors, ats, digests)
	}
}

// nonNil is p, or an empty slice for nil: NOT NULL columns take no NULL.
func nonNil(p []byte) []byte {
	if p == nil {
		return []byte{}
	}
	return p
}
