package sharevat

import (
	"context"
	"time"
)

// Store is everything the vat needs from storage. Implementations must be
// safe for concurrent use and must make every write durable before it
// returns. Share and Shares return deleted shares (Deleted set), and
// ListShares does on request; every other method treats a deleted share
// as ENotFound. A share's id is never reused, even after Delete. The bbolt implementation lives in
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
	// s.Head, s.Earliest, s.Deleted, s.DeletedAt, s.ParentID and
	// s.ForkCursor are ignored (a new share is live, unforked, with an
	// empty log) and s.OwnerRoot is set to owner.ID; s.Meta,
	// s.Settings and s.MaxBytes are stored as given.
	// Errors: EConflict if the share id exists or ever existed (a deleted
	// share keeps its id) or the grant id exists; EInvalid if an id is
	// empty, owner.ShareID != s.ID, owner.Epoch != s.Epoch, or s.Settings
	// are invalid (an unknown privacy policy, a negative RetainFor).
	CreateShare(ctx context.Context, s Share, owner Grant) error
	// Fork creates s as a fork of share parent at cursor at, with its
	// owner grant, atomically: s's log is the parent's entries 1..at
	// (same op ids, batch ids, seqs, kinds, keys, bodies, delete flags
	// and times, at the same cursors), its op-id index holds those op
	// ids, and its state is the parent's state at cursor at. s.ParentID
	// and s.ForkCursor are set to parent and at; the other fields are
	// taken as CreateShare takes them. If the parent was compacted, the
	// fork is compacted alike: its Earliest is the parent's, and the
	// state and op-id index still cover every op up to at. It returns the
	// new share as stored. at = 0 forks an empty log.
	// Errors: ENotFound if parent does not exist or is deleted; EInvalid
	// if at > the parent's head, and as CreateShare; ECompacted if at is
	// before the parent's Earliest-1 (its state there is gone), naming
	// the earliest; EConflict as CreateShare.
	Fork(ctx context.Context, parent ShareID, at Cursor, s Share, owner Grant) (Share, error)
	// ForkWithin is Fork within quota q, counted in the fork's own
	// transaction (so concurrent forks, from one vat or several, cannot
	// pass it between them); Fork is ForkWithin with no limit. A fork's
	// bytes stay charged to its tree until it is deleted.
	// Errors: as Fork; ETooLarge past a limit of q, with the words of
	// ForkQuotaError, TreeForksQuotaError or TreeBytesQuotaError.
	ForkWithin(ctx context.Context, parent ShareID, at Cursor, s Share, owner Grant, q ForkQuota) (Share, error)
	// Children lists the live shares forked from parent, oldest first
	// (by creation time, then id). Errors: ENotFound if parent does not
	// exist or is deleted.
	Children(ctx context.Context, parent ShareID) ([]Share, error)
	// Delete deletes a share at time at: it is marked Deleted (DeletedAt
	// = at) and stays listed by Share and Shares, every grant of it is
	// revoked at at (as RevokeGrants), and its log, state and op-id index
	// are removed, all in one transaction. Its id is never reused; its
	// children live on, their ParentID unchanged; its audit records stay.
	// Errors: ENotFound if it does not exist or is already deleted.
	Delete(ctx context.Context, id ShareID, at time.Time) error
	// Share returns one share, deleted or not. Errors: ENotFound.
	Share(ctx context.Context, id ShareID) (Share, error)
	// Shares lists all shares, deleted ones included, ordered by id, each
	// with its Head as Share gives it (the log's head). For callers that
	// need every share at once; a listing for people is ListShares.
	Shares(ctx context.Context) ([]Share, error)
	// ListShares returns one page of the shares that match f, newest
	// update first (Meta.UpdatedAt, which every applied append moves),
	// then by id, each as Share gives it, and the token of the next page
	// ("" on the last page). Errors: EInvalid for a negative limit, an
	// unknown status, or a page token this store did not make.
	ListShares(ctx context.Context, f ListFilter) ([]Share, string, error)
	// Statuses returns the status of every live share, ordered by id.
	// It reads no share's metadata beyond its title, status and status
	// time.
	Statuses(ctx context.Context) ([]ShareStatus, error)
	// UpdateMeta applies patch at now and returns the updated share; when
	// the patch changes the status, Meta.StatusAt becomes now.
	// Errors: ENotFound, EInvalid, ETooLarge.
	UpdateMeta(ctx context.Context, id ShareID, patch MetaPatch, now time.Time) (Share, error)
	// Settings returns the share's settings (the zero value if never
	// set). Errors: ENotFound.
	Settings(ctx context.Context, id ShareID) (Settings, error)
	// PutSettings replaces the share's settings and returns them as
	// stored. Errors: ENotFound; EInvalid for an unknown privacy policy
	// or a negative RetainFor.
	PutSettings(ctx context.Context, id ShareID, set Settings) (Settings, error)
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
	// limit < 1; ECompacted if after+1 is before the share's Earliest
	// (the message names the earliest cursor still readable: read after
	// earliest-1, or take the snapshot).
	Read(ctx context.Context, id ShareID, after Cursor, limit int) ([]Entry, Cursor, error)
	// Snapshot returns the materialized state, ordered by (kind, key),
	// and the cursor it reflects. Compaction never changes it.
	// Errors: ENotFound.
	Snapshot(ctx context.Context, id ShareID) ([]Entity, Cursor, error)
	// StatePage returns one page of the materialized state in req.Order
	// from req.After, bounded by req's MaxCount and MaxBytes (at least one
	// entity when any is left), from one consistent view of the share. It
	// never holds more of the state in memory than the page (and, for
	// ByChange, the keys of MaxCount candidates). Errors: ENotFound;
	// EInvalid for an unknown order.
	StatePage(ctx context.Context, id ShareID, req StatePageRequest) (StatePage, error)
	// Compact drops the log entries (bodies and all) with cursor <
	// before and returns the share's Earliest, which becomes before. The
	// op-id index stays whole, so a later append of a compacted op id is
	// still answered duplicate (or idReused) at its original cursor and
	// a dependency on it is met; the materialized state stays exact.
	// before at or below Earliest changes nothing. before = Head+1 drops
	// every entry; the head stays.
	// Errors: ENotFound; EInvalid if before > Head+1.
	Compact(ctx context.Context, id ShareID, before Cursor) (Cursor, error)
}

// AppendRequest is one batch bound for one share.
type AppendRequest struct {
	Share   ShareID
	Batch   *Batch
	Limits  Limits
	Now     time.Time
	Privacy Privacy // the share's policy for secret-shaped strings in bodies
}

// ForkQuota bounds the forks a Store.ForkWithin may make. A fork tree is
// a share that was not forked (its root) and every share forked from it,
// directly or not, deleted ones included; its live forks are charged
// their count and the bytes each fork copied when it was made (the log
// records and op-id index entries, as the store holds them). A field < 1
// is no limit.
type ForkQuota struct {
	MaxForks     int   // live forks of the parent
	MaxTreeForks int   // live forks in the parent's tree, this one included
	MaxTreeBytes int64 // bytes charged to the parent's tree, this fork's included
}

// ForkQuotaError is the refusal of a fork past max live forks of its
// parent (n of them), the same words from every store.
func ForkQuotaError(n, max int) error {
	return Errorf(ETooLarge, "this share has %d live forks (the limit is %d); delete some first", n, max)
}

// TreeForksQuotaError is the refusal of a fork past max live forks in
// its fork tree (n of them).
func TreeForksQuotaError(n, max int) error {
	return Errorf(ETooLarge, "this share's fork tree has %d live forks (the limit is %d); delete some first", n, max)
}

// TreeBytesQuotaError is the refusal of a fork that would charge its
// fork tree more than max bytes (used already, this fork's need).
func TreeBytesQuotaError(used, need, max int64) error {
	return Errorf(ETooLarge, "this fork needs %d bytes and its fork tree holds %d of its %d; delete some forks first", need, used, max)
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
