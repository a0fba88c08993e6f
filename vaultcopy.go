package sharevat

import "context"

// ShareCopy is what `sharevat migrate` reads of one share through a
// Store's interface and writes into another store as it was: ids,
// cursors, times, digests and verifiers kept, so that every token still
// redeems and every op id is still a duplicate at its cursor.
type ShareCopy struct {
	Share  Share   // as stored: epoch, head, earliest, deleted, fork origin, settings
	Grants []Grant // every grant of the share, revoked ones too, with verifiers
	Log    []Entry // cursors Earliest..Head, with their digests
	State  []Entity
	// Compacted holds what a compaction kept of the ops before
	// Share.Earliest (empty for a share never compacted).
	Compacted Compacted
}

// Compacted is what a share's compactions kept beyond its log: the
// op-id index entries of the ops they dropped, so that a late retry of
// one is still a duplicate at its cursor, and the base, the state at
// Earliest-1 of every entity written since, so that the state at any
// cursor from Earliest-1 on (a fork) can still be rebuilt.
type Compacted struct {
	Earliest Cursor      // the share's earliest readable cursor when read
	Ops      []IndexedOp // the op-id index entries of cursors below Earliest
	Base     []Entity    // never a deletion; each entity's digest is its content's
}

// IndexedOp is one op-id index entry: what a duplicate is answered
// from, and all that is left of an op a compaction dropped.
type IndexedOp struct {
	OpID   string
	Cursor Cursor
	Digest [32]byte // of the op's content as stored
	// Short: only Digest[:ShortDigestLen] is known, the rest is zero (the
	// embedded store keeps that much of a compacted op's digest).
	Short bool
}

// ShortDigestLen is how many leading bytes of its digest a short
// IndexedOp keeps.
const ShortDigestLen = 8

// Matches reports whether content of digest d is the op ix indexes: the
// whole digest, or its first ShortDigestLen bytes for a short entry.
func (ix *IndexedOp) Matches(d [32]byte) bool {
	if ix.Short {
		return [ShortDigestLen]byte(d[:]) == [ShortDigestLen]byte(ix.Digest[:])
	}
	return d == ix.Digest
}

// CompactedReader is implemented by a store that can give what a
// share's compactions kept (sharevat migrate reads it from a stopped
// vault). Errors: ENotFound for a share unknown or deleted.
type CompactedReader interface {
	ReadCompacted(ctx context.Context, id ShareID) (Compacted, error)
}

// VaultLoader is implemented by a store that can take a vault copied from
// another store (sharevat migrate). It writes what it is given as it is;
// the caller copies into an empty store, shares before their forks.
type VaultLoader interface {
	// LoadShare writes one share, its grants, log, op-id index (from
	// the log and c.Compacted.Ops), state and base. Errors: EConflict
	// if the share or a grant exists; EInvalid for a compacted op id
	// at or past c.Share.Earliest.
	LoadShare(ctx context.Context, c ShareCopy) error
	// LoadGrants writes grants of no share (server admin grants).
	LoadGrants(ctx context.Context, gs []Grant) error
	// LoadAudit writes audit records keeping their Seq.
	LoadAudit(ctx context.Context, recs []AuditRecord) error
}
