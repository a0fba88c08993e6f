package sharevat

import (
	"context"
	"time"
)

// DoorSession is what a door recorded of a share it made for a client's
// session: the opencode door's create answers the same share again for
// the same creator and session (docs/opencode.md, "Create is
// idempotent"). The tokens in it are sealed by the door (the store never
// holds them in plain).
type DoorSession struct {
	Creator string  // who created: a creation token's grant id, or "open"
	Session string  // the client's session id
	Share   ShareID // the share made for it
	Secret  string  // the owner token, sealed
	Link    string  // the read-only link token, sealed
	Max     int64   // bytes the share may hold (the creator's quota); 0: unlimited
	Created time.Time
}

// SessionIndex keeps DoorSessions, at most one per creator and session,
// in the store every vat on it shares: two vats behind one load balancer
// answer one session with one share.
type SessionIndex interface {
	// ClaimSession stores s unless an entry of s.Creator and s.Session
	// is stored, and returns the stored entry: s, or the one stored
	// first (by whichever vat). Errors: EInvalid for an empty Creator,
	// Session or Share.
	ClaimSession(ctx context.Context, s DoorSession) (DoorSession, error)
	// DoorSession returns the entry of creator's session. Errors:
	// ENotFound.
	DoorSession(ctx context.Context, creator, session string) (DoorSession, error)
	// DoorSessionOf returns the entry naming share id. Errors: ENotFound.
	DoorSessionOf(ctx context.Context, id ShareID) (DoorSession, error)
	// DropDoorSession removes the entry naming share id (the share was
	// unshared or is gone), so that a later claim of its session stores
	// a new one; none is no error.
	DropDoorSession(ctx context.Context, id ShareID) error
}
