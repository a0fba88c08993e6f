package vat

import (
	"context"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
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
	used := make(map[sharevat.GrantID]time.Time)
	for _, id := range ids {
		if lg := r.grants[id]; lg != nil {
			lg.cancel(errDead)
			delete(r.grants, id)
			lg.collectUse(used)
		}
	}
	r.mu.Unlock()
	r.v.persistUse(ctx, used)
	r.v.obs.Revoked(len(ids))
	return nil
}

// bump advances a share's epoch, storing owner's grant (made from the
// share before the bump, for the epoch after it) as the new owner grant,
// and cancels every live grant of the earlier epochs.
func (r *registry) bump(ctx context.Context, id sharevat.ShareID, owner func(old sharevat.Share) (sharevat.Grant, error)) (sharevat.Share, error) {
	r.loadMu.Lock()
	defer r.loadMu.Unlock()
	sh, err := r.v.store.Share(ctx, id)
	if err != nil {
		return sh, err
	}
	g, err := owner(sh)
	if err != nil {
		return sh, err
	}
	if sh, err = r.v.store.BumpEpoch(ctx, id, g); err != nil {
		return sh, fmt.Errorf("bump epoch: %w", err)
	}
	r.v.persistUse(ctx, r.fence(id, sh.Epoch))
	r.v.obs.EpochBumped()
	return sh, nil
}

// fence replaces a share's epoch context and drops its older grants,
// returning their last-use times.
func (r *registry) fence(id sharevat.ShareID, epoch sharevat.Epoch) map[sharevat.GrantID]time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ls := r.shares[id]; ls != nil {
		ls.cancel(errDead)
	}
	r.shares[id] = newLiveShare(r.root, epoch)
	used := make(map[sharevat.GrantID]time.Time)
	for gid, lg := range r.grants {
		if lg.g.ShareID == id && lg.g.Epoch != epoch {
			lg.cancel(errDead)
			delete(r.grants, gid)
			lg.collectUse(used)
		}
	}
	return used
}

// collectUse adds lg's last use, if any, to used.
func (lg *liveGrant) collectUse(used map[sharevat.GrantID]time.Time) {
	if n := lg.used.Load(); n > 0 {
		used[lg.g.ID] = time.Unix(0, n).UTC()
	}
}

// usage returns the last-use times of every cached grant (of one share,
// or of all when share is "").
func (r *registry) usage(share sharevat.ShareID) map[sharevat.GrantID]time.Time {
	r.mu.RLock()
	defer r.mu.RUnlock()
	used := make(map[sharevat.GrantID]time.Time)
	for _, lg := range r.grants {
		if share == "" || lg.g.ShareID == share {
			lg.collectUse(used)
		}
	}
	return used
}

// persistUse writes last-use times to the store. Last-use is advisory:
// kept in memory on the hot path and written when grants are listed,
// revoked or fenced, and when the vat closes; a failure is only logged.
func (v *Vat) persistUse(ctx context.Context, used map[sharevat.GrantID]time.Time) {
	if len(used) == 0 {
		return
	}
	if err := v.store.TouchGrants(context.WithoutCancel(ctx), used); err != nil {
		v.log.Warn("saving last-use times failed", "err", err)
	}
}

// FlushUsage writes every cached last-use time to the store; serve calls
// it at shutdown.
func (v *Vat) FlushUsage(ctx context.Context) {
	v.persistUse(ctx, v.reg.usage(""))
}
