package pg

import (
	"github.com/jackc/pgx/v5"

	"github.com/sharevat/sharevat"
)

// checkCompacted refuses a copy whose compacted part does not fit its
// share: an op id at or past the earliest cursor (the log gives those),
// a compacted part read at another earliest than the share's, or base
// rows for a share never compacted.
func checkCompacted(c *sharevat.ShareCopy) error {
	k, s := &c.Compacted, &c.Share
	if len(k.Ops) == 0 && len(k.Base) == 0 {
		return nil
	}
	if k.Earliest != s.Earliest || s.Earliest <= 1 {
		return sharevat.Errorf(sharevat.EInvalid, "share %s: compacted ops read at earliest cursor %d, but the share's is %d", s.ID, k.Earliest, s.Earliest)
	}
	for _, ix := range k.Ops {
		if ix.Cursor < 1 || ix.Cursor >= s.Earliest {
			return sharevat.Errorf(sharevat.EInvalid, "share %s: compacted op id at cursor %d, outside 1..%d", s.ID, ix.Cursor, s.Earliest-1)
		}
	}
	return nil
}

// queueCompacted queues the op-id index rows of the ops compactions
// dropped and the base rows of share id.
func queueCompacted(batch *pgx.Batch, id []byte, k *sharevat.Compacted) {
	if n := len(k.Ops); n > 0 {
		opIDs, cursors, digests := make([][]byte, n), make([]int64, n), make([][]byte, n)
		for i := range k.Ops {
			opIDs[i], cursors[i], digests[i] = b(k.Ops[i].OpID), int64(k.Ops[i].Cursor), storedDigest(&k.Ops[i])
		}
		batch.Queue(`INSERT INTO ops (share, op_id, cursor, digest) SELECT $1, * FROM unnest($2::bytea[], $3::bigint[], $4::bytea[])`,
			id, opIDs, cursors, digests)
	}
	for _, e := range k.Base {
		d := contentDigest(e.Kind, e.Key, e.Body, false)
		batch.Queue(`INSERT INTO base (share, kind, key, body, cursor, at, digest) VALUES ($1,$2,$3,$4,$5,$6,$7)`,
			id, b(e.Kind), b(e.Key), nonNil(e.Body), i64(e.Cursor), ns(e.At), d[:])
	}
}

// storedDigest is what the ops row keeps of ix's digest: all 32 bytes,
// or the ShortDigestLen that a short entry (from a bbolt vault) has.
func storedDigest(ix *sharevat.IndexedOp) []byte {
	if ix.Short {
		return ix.Digest[:sharevat.ShortDigestLen]
	}
	return ix.Digest[:]
}
