package vat

import (
	"context"
	"fmt"

	"sharevat"
)

// revoke marks ids revoked in the store and then cancels their live
// contexts (and so their descendants'), holding loadMu across both so no
// cache fill can slip a stale entry in between. When it returns, no call
// on a revoked capability can start successfully.
func (r *registry) revoke(ctx context.Context, ids []sharevat.GrantID) error {
	r.loadMu.Lock()
	defer r.loadMu.Unlock()
	if err := r.v.store.RevokeGrants(ctx, ids, r.v.now()); err != nil {
		return fmt.Errorf("revoke: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, id := range ids {
		if lg := r.grants[id]; lg != nil {
			lg.cancel(errDead)
			delete(r.grants, id)
		}
	}
	return nil
}

// bump advances a share's epoch, storing owner as the new owner grant,
// and cancels every live grant of the earlier epochs.
func (r *registry) bump(ctx context.Context, id sharevat.ShareID, owner func(sharevat.Epoch) (sharevat.Grant, error)) (sharevat.Share, error) {
	r.loadMu.Lock()
	defer r.loadMu.Unlock()
	sh, err := r.v.store.Share(ctx, id)
	if err != nil {
		return sh, err
	}
	g, err := owner(sh.Epoch + 1)
	if err != nil {
		return sh, err
	}
	if sh, err = r.v.store.BumpEpoch(ctx, id, g); err != nil {
		return sh, fmt.Errorf("bump epoch: %w", err)
	}
	r.fence(id, sh.Epoch)
	return sh, nil
}

// fence replaces a share's epoch context and drops its older grants.
func (r *registry) fence(id sharevat.ShareID, epoch sharevat.Epoch) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ls := r.shares[id]; ls != nil {
		ls.cancel(errDead)
	}
	r.shares[id] = newLiveShare(r.root, epoch)
	for gid, lg := range r.grants {
		if lg.g.ShareID == id && lg.g.Epoch != epoch {
			lg.cancel(errDead)
			delete(r.grants, gid)
		}
	}
}

// lastUsed returns the in-memory last-use time of cached grants.
func (r *registry) lastUsed(id sharevat.GrantID) int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if lg := r.grants[id]; lg != nil {
		return lg.used.Load()
	}
	return 0
}
