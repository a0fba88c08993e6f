package sharevat

import (
	"context"
	"time"
)

// ChangeKind says what a Change reports.
type ChangeKind uint8

// The kinds of Change.
const (
	// ChangeAppended: Share's head moved to Head (or further).
	ChangeAppended ChangeKind = iota + 1
	// ChangeRevoked: Grant was revoked.
	ChangeRevoked
	// ChangeShare: Share's epoch, deletion or settings changed; whoever
	// caches them must read the share again.
	ChangeShare
	// ChangeLost: changes may be missed from now on (the feed's
	// connection dropped): everything cached is unknown until the next
	// ChangeSynced.
	ChangeLost
	// ChangeSynced: the feed reports every change committed from now
	// on; whatever was cached before must be read again, since changes
	// committed before it may have been missed.
	ChangeSynced
)

// Change is one change committed to a store shared by several
// processes, as its ChangeFeed reports it.
type Change struct {
	Kind  ChangeKind
	Share ShareID // ChangeAppended, ChangeShare
	Grant GrantID // ChangeRevoked
	Head  Cursor  // ChangeAppended
	// At is when the change committed by the database's clock; zero
	// when unknown (ChangeLost, ChangeSynced).
	At time.Time
}

// ChangeFeed is implemented by a Store that other processes may write
// too (store/pg): it reports the changes any of them commits, this
// process's own included, so that a vat can end capabilities revoked
// through another vat and wake subscriptions to ops appended through
// another vat. The store stays the truth: a change only says what to
// read again. store/bolt, which one process owns, does not implement
// it.
type ChangeFeed interface {
	// WatchChanges calls fn from one goroutine, in the order the changes
	// arrive, until ctx ends; then it returns ctx's error. The first call
	// is ChangeSynced once the feed listens; each ChangeLost (the feed's
	// connection dropped) is followed by ChangeSynced when it listens
	// again. Until the first ChangeSynced the caller knows nothing of
	// other processes' changes. fn must not block for long: changes
	// queue behind it.
	WatchChanges(ctx context.Context, fn func(Change)) error
	// Heads returns the heads of the shares named (an unknown or deleted
	// one is left out): the vat's safety net compares them with the heads
	// it was told of, so a lost append notice delays ops, never loses
	// them, at the cost of one query per round whatever the number of
	// subscriptions.
	Heads(ctx context.Context, ids []ShareID) (map[ShareID]Cursor, error)
}
