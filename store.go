package sharevat

import (
	"context"
	"time"
)

// Store is everything the vat needs from storage. Implementations must be
// safe for concurrent use and must make every write durable before it
// returns. Share and Shares return deleted shares; every other method
// treats a deleted share as ENotFound. The bbolt implementation lives in
// store/bolt; the contract suite every implementation must pass lives in
// store/storetest; every implementation runs appends through the append
// engine of store/apply.
type Store interface {
	ShareStore
	GrantStore
	LogStore
	AuditStore
	Close() error
}

// ShareStore keeps shares.
type ShareStore interface {
	// CreateShare stores s and its owner grant atomically.
	// s.Head is ignored and s.OwnerRoot is set to owner.ID.
	// Errors: EConflict if the share or grant id exists; EInvalid if an id
	// is empty, owner.ShareID != s.ID, or owner.Epoch != s.Epoch.
	CreateShare(ctx context.Context, s Share, owner Grant) error
	// Share returns one share. Errors: ENotFound.
	Share(ctx context.Context, id ShareID) (Share, error)
	// Shares lists all shares, ordered by id, each with its Head as
	// Share gives it (the log's head).
	Shares(ctx context.Context) ([]Share, error)
	// UpdateMeta applies patch at now and returns the updated share.
	// Errors: ENotFound, EInvalid, ETooLarge.
	UpdateMeta(ctx context.Context, id ShareID, patch MetaPatch, now time.Time) (Share, error)
	// BumpEpoch increments the share's epoch and stores owner (minted at
	// the new epoch, with the new epoch in owner.Epoch) as its new owner
	// grant, atomically. Errors: ENotFound; EConflict if owner.Epoch is
	// not the current epoch + 1; EInvalid if owner.ShareID != id or
	// owner.ID is empty.
	BumpEpoch(ctx context.Context, id ShareID, owner Grant) (Share, error)
}

// GrantStore keeps grants (the vault).
type GrantStore interface {
	// CreateGrant stores a new grant. Errors: EConflict if the id exists;
	// ENotFound if its share does not exist; EInvalid if the id is empty.
	CreateGrant(ctx context.Context, g Grant) error
	// Grant returns one grant. Errors: ENotFound.
	Grant(ctx context.Context, id GrantID) (Grant, error)
	// Grants lists a share's grants (admin grants for the empty id),
	// ordered by creation time, then id. An unknown share has no grants.
	Grants(ctx context.Context, share ShareID) ([]Grant, error)
	// RevokeGrants marks the given grants revoked at the given time,
	// atomically; already revoked grants keep their first revocation time.
	// Errors: ENotFound if any id is unknown (then nothing changes).
	RevokeGrants(ctx context.Context, ids []GrantID, at time.Time) error
	// TouchGrants records last-used times; unknown ids, and times earlier
	// than the stored one, are ignored.
	TouchGrants(ctx context.Context, used map[GrantID]time.Time) error
	// CreateChild stores g, a grant minted from g.Parent, like
	// CreateGrant, unless g.Parent already has maxLive or more live
	// children (neither revoked nor expired at g.CreatedAt); maxLive < 1
	// means no limit. Errors: as CreateGrant; EInvalid if g.Parent is
	// empty; ENotFound if the parent does not exist or is of another
	// share; ETooLarge at the limit. On error nothing is stored.
	CreateChild(ctx context.Context, g Grant, maxLive int) error
	// Subtree returns the grant root and every grant minted below it,
	// revoked ones included, ordered by creation time, then id. It costs
	// what the subtree costs, not what the share costs.
	// Errors: ENotFound if root does not exist.
	Subtree(ctx context.Context, root GrantID) ([]Grant, error)
}

// LogStore keeps each share's log, its permanent op-id index and its
// materialized state.
type LogStore interface {
	// Append applies one batch with the append engine of store/apply
	// (apply.Prepare, then Batch.Apply in one transaction over the
	// backend's apply.Tx) and returns only after it is durable. Concurrent calls
	// may be committed together (group commit), each acknowledged after
	// the shared commit.
	// Errors: ENotFound if the share does not exist or is deleted;
	// EInvalid if Batch is nil or Limits fail Validate.
	Append(ctx context.Context, req AppendRequest) (Ack, error)
	// Read returns up to limit entries with cursor > after, in cursor
	// order, and the share's head. Errors: ENotFound; EInvalid for
	// limit < 1.
	Read(ctx context.Context, id ShareID, after Cursor, limit int) ([]Entry, Cursor, error)
	// Snapshot returns the materialized state, ordered by (kind, key),
	// and the cursor it reflects. Errors: ENotFound.
	Snapshot(ctx context.Context, id ShareID) ([]Entity, Cursor, error)
}

// AppendRequest is one batch bound for one share.
type AppendRequest struct {
	Share   ShareID
	Batch   *Batch
	Limits  Limits
	Now     time.Time
	Privacy Privacy // the share's policy for secret-shaped strings in bodies
}

// AuditStore keeps the audit log.
type AuditStore interface {
	// Audit appends records durably; the store assigns Seq.
	Audit(ctx context.Context, recs ...AuditRecord) error
	// AuditLog returns up to limit records with Seq > after, oldest first;
	// with share non-empty, only that share's records. Errors: EInvalid
	// for limit < 1.
	AuditLog(ctx context.Context, share ShareID, after uint64, limit int) ([]AuditRecord, error)
}
