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
}

// VaultLoader is implemented by a store that can take a vault copied from
// another store (sharevat migrate). It writes what it is given as it is;
// the caller copies into an empty store, shares before their forks.
type VaultLoader interface {
	// LoadShare writes one share, its grants, log, op-id index (from
	// the log) and state. Errors: EConflict if the share or a grant
	// exists.
	LoadShare(ctx context.Context, c ShareCopy) error
	// LoadGrants writes grants of no share (server admin grants).
	LoadGrants(ctx context.Context, gs []Grant) error
	// LoadAudit writes audit records keeping their Seq.
	LoadAudit(ctx context.Context, recs []AuditRecord) error
}
