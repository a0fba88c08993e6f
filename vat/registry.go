package vat

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sharevat/sharevat"
)

// errDead is the cancellation cause of a revoked, fenced or deleted
// grant's context.
var errDead = sharevat.Errorf(sharevat.ERevoked, "capability revoked or expired")

// registry is the vat's in-memory view of grant validity, kept in step
// with the store so that the check before every call costs a map lookup,
// not a read transaction.
//
// Each live grant owns a context derived from its parent's (a root
// grant's from its share's epoch context): revoking a grant cancels its
// context and so, at once, every descendant's, and bumping an epoch
// cancels the share's. Facets watch their grant's context to cancel
// in-flight calls and end subscriptions.
//
// Locking: mu guards the maps and is held only briefly, never across
// store I/O. loadMu serializes cache fills with revocations so that a
// fill that read the store before a revocation committed cannot insert a
// stale, live entry after it (revocations hold loadMu across their commit
// and their cancel).
type registry struct {
	v      *Vat
	loadMu sync.Mutex
	mu     sync.RWMutex
	grants map[sharevat.GrantID]*liveGrant
	shares map[sharevat.ShareID]*liveShare
	root   context.Context // parent of admin grants and share epochs
}

// liveShare is the cached epoch of a share.
type liveShare struct {
	epoch  sharevat.Epoch
	ctx    context.Context
	cancel context.CancelCauseFunc
}

// liveGrant is a valid grant as cached by the registry.
type liveGrant struct {
	g       sharevat.Grant // as stored (Verifier kept for restore)
	expires time.Time      // earliest expiry along the chain; zero: never
	depth   int            // 0 for a root grant
	ctx     context.Context
	cancel  context.CancelCauseFunc
	used    atomic.Int64 // last use, Unix nanoseconds
}

func newRegistry(v *Vat) *registry {
	return &registry{
		v: v, root: context.Background(),
		grants: make(map[sharevat.GrantID]*liveGrant),
		shares: make(map[sharevat.ShareID]*liveShare),
	}
}

// alive reports whether lg may be used at now.
func (lg *liveGrant) alive(now time.Time) bool {
	return lg.ctx.Err() == nil && (lg.expires.IsZero() || now.Before(lg.expires))
}

// touch records a use at now.
func (lg *liveGrant) touch(now time.Time) { lg.used.Store(now.UnixNano()) }

// get returns the live grant id, or errDead if it is unknown, revoked,
// expired, fenced by an epoch bump, or on a deleted share. While the vat
// may miss other vats' changes (unsynced), a cached grant is checked
// against the store.
func (r *registry) get(ctx context.Context, id sharevat.GrantID) (*liveGrant, error) {
	r.mu.RLock()
	lg := r.grants[id]
	r.mu.RUnlock()
	if lg == nil {
		var err error
		if lg, err = r.fill(ctx, id); err != nil {
			return nil, err
		}
	} else if r.v.unsynced() {
		if err := r.recheck(ctx, lg); err != nil {
			return nil, err
		}
	}
	if !lg.alive(r.v.now()) {
		return nil, errDead
	}
	return lg, nil
}

// fill loads id and its ancestors into the cache.
func (r *registry) fill(ctx context.Context, id sharevat.GrantID) (*liveGrant, error) {
	r.loadMu.Lock()
	defer r.loadMu.Unlock()
	return r.load(ctx, id, 0)
}

// load is fill under loadMu; depth bounds a corrupt parent chain.
func (r *registry) load(ctx context.Context, id sharevat.GrantID, depth int) (*liveGrant, error) {
	r.mu.RLock()
	lg := r.grants[id]
	r.mu.RUnlock()
	if lg != nil {
		return lg, nil
	}
	if depth > maxGrantDepth {
		return nil, errDead
	}
	g, err := r.v.store.Grant(ctx, id)
	if err != nil {
		return nil, deadIfNotFound(err)
	}
	if g.Revoked {
		return nil, errDead
	}
	parent, err := r.parentOf(ctx, &g, depth)
	if err != nil {
		return nil, err
	}
	return r.insert(g, parent), nil
}

// parent is what a grant's live state derives from: its parent grant's
// (or, for a root grant, its share epoch's) context.
type parent struct {
	ctx     context.Context
	also    context.Context // nil, or a second context whose end ends the grant too (a fork root's share epoch)
	expires time.Time
	depth   int
}

// parentOf finds the live parent of g.
func (r *registry) parentOf(ctx context.Context, g *sharevat.Grant, depth int) (parent, error) {
	switch {
	case g.IsAdmin():
		return parent{ctx: r.root, depth: -1}, nil
	case g.Parent == "":
		ls, err := r.share(ctx, g.ShareID)
		if err != nil {
			return parent{}, err
		}
		if ls.epoch != g.Epoch {
			return parent{}, errDead
		}
		return parent{ctx: ls.ctx, depth: -1}, nil
	}
	p, err := r.load(ctx, g.Parent, depth+1)
	if err != nil {
		return parent{}, err
	}
	if p.g.ShareID != g.ShareID {
		return r.forkRootParent(ctx, g, p) // forkroot.go
	}
	if p.g.Epoch != g.Epoch {
		return parent{}, errDead
	}
	return parent{ctx: p.ctx, expires: p.expires, depth: p.depth}, nil
}

// share returns the cached epoch context of a share, loading it under
// loadMu.
func (r *registry) share(ctx context.Context, id sharevat.ShareID) (*liveShare, error) {
	r.mu.RLock()
	ls := r.shares[id]
	r.mu.RUnlock()
	if ls != nil {
		return ls, nil
	}
	sh, err := r.v.store.Share(ctx, id)
	if err != nil {
		return nil, deadIfNotFound(err)
	}
	if sh.Deleted {
		return nil, errDead
	}
	ls = newLiveShare(r.root, sh.Epoch)
	r.mu.Lock()
	r.shares[id] = ls
	r.mu.Unlock()
	return ls, nil
}

func newLiveShare(root context.Context, epoch sharevat.Epoch) *liveShare {
	ctx, cancel := context.WithCancelCause(root)
	return &liveShare{epoch: epoch, ctx: ctx, cancel: cancel}
}

func (r *registry) insert(g sharevat.Grant, p parent) *liveGrant {
	ctx, cancel := context.WithCancelCause(p.ctx)
	if p.also != nil {
		stop := context.AfterFunc(p.also, func() { cancel(errDead) })
		context.AfterFunc(ctx, func() { stop() })
	}
	lg := &liveGrant{g: g, expires: earliest(p.expires, g.ExpiresAt), depth: p.depth + 1, ctx: ctx, cancel: cancel}
	r.mu.Lock()
	r.grants[g.ID] = lg
	r.mu.Unlock()
	return lg
}

// earliest returns the earlier of two expiries (zero is never).
func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	}
	return b
}

func deadIfNotFound(err error) error {
	if sharevat.ErrorCode(err) == sharevat.ENotFound {
		return errDead
	}
	return err
}
