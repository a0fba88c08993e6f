package vat

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sharevat/sharevat"
)

// checkEvery is the safety net of subscriptions on a shared store: this
// often the vat reads the heads of the shares it has subscriptions to
// (one query) and wakes those whose head moved past what it was told, so
// that an append whose notice never arrived is delayed, never lost.
const checkEvery = 5 * time.Second

// changeFollower keeps the vat in step with a store other vats write too
// (sharevat.ChangeFeed, docs/several-vats.md): it ends the live
// capabilities revoked, fenced or deleted through another vat, forgets
// settings changed there, and wakes the subscriptions of shares appended
// to there. The store is the truth and a notice only says what to read
// again: while the feed is not synced (before it first listens, and
// whenever its connection drops) every cached grant and setting is
// unknown, so each call re-reads its grant chain and share (recheck),
// and when it listens again every cached grant and share is read again
// before the cache is trusted.
type changeFollower struct {
	feed     sharevat.ChangeFeed
	unsynced atomic.Bool
	cancel   context.CancelFunc
	done     chan struct{}
}

// startChanges follows the store's changes when it reports them; New
// calls it, Close stops it (stopChanges).
func (v *Vat) startChanges() {
	feed, ok := v.store.(sharevat.ChangeFeed)
	if !ok {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c := &changeFollower{feed: feed, cancel: cancel, done: make(chan struct{})}
	c.unsynced.Store(true)
	v.changes = c
	go v.followChanges(ctx)
}

// followChanges runs the feed and the safety-net ticker until ctx ends,
// and waits for both.
func (v *Vat) followChanges(ctx context.Context) {
	defer close(v.changes.done)
	tick := time.NewTicker(checkEvery)
	defer tick.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() {
		for {
			select {
			case <-tick.C:
				v.checkHeads(ctx)
			case <-ctx.Done():
				return
			}
		}
	})
	_ = v.changes.feed.WatchChanges(ctx, func(c sharevat.Change) { v.onChange(ctx, c) })
}

// stopChanges stops following and waits for the follower, or for ctx.
func (v *Vat) stopChanges(ctx context.Context) error {
	if v.changes == nil {
		return nil
	}
	v.changes.cancel()
	select {
	case <-v.changes.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// unsynced reports whether the cache may miss changes made through other
// vats: the store is shared and its feed is not listening.
func (v *Vat) unsynced() bool { return v.changes != nil && v.changes.unsynced.Load() }

// onChange applies one change the feed reported.
func (v *Vat) onChange(ctx context.Context, c sharevat.Change) {
	v.log.Debug("store change", "kind", c.Kind, "share", c.Share, "grant", c.Grant, "head", c.Head)
	switch c.Kind {
	case sharevat.ChangeAppended:
		v.hub.publish(c.Share, c.Head)
	case sharevat.ChangeRevoked:
		v.reg.forget(ctx, c.Grant)
	case sharevat.ChangeShare:
		v.reg.reloadShare(ctx, c.Share)
		v.settings.forget(c.Share)
	case sharevat.ChangeLost:
		v.changes.unsynced.Store(true)
		v.hub.wakeAll() // each subscription rechecks its grant
	case sharevat.ChangeSynced:
		v.changes.unsynced.Store(true)
		v.resync(ctx)
		v.changes.unsynced.Store(false)
	}
}

// resync reads every cached grant and share again (the feed listens
// again, so whatever changed before is in the store), forgets every
// cached setting, and wakes every subscription to read from its cursor.
func (v *Vat) resync(ctx context.Context) {
	for _, id := range v.reg.cachedShares() {
		v.reg.reloadShare(ctx, id)
	}
	for _, lg := range v.reg.cachedGrants() {
		if err := v.reg.reread(ctx, lg); err != nil && err != errDead {
			v.log.Warn("re-reading a grant after the change feed reconnected failed", "grant", lg.g.ID, "err", err)
		}
	}
	v.settings.forgetAll()
	v.hub.wakeAll()
}

// forget ends grant id's live capabilities (and so its descendants'), as
// revoke does after its commit, when another vat revoked it.
func (r *registry) forget(ctx context.Context, id sharevat.GrantID) {
	r.loadMu.Lock()
	defer r.loadMu.Unlock()
	r.mu.Lock()
	lg := r.grants[id]
	if lg != nil {
		lg.cancel(errDead)
		delete(r.grants, id)
	}
	r.mu.Unlock()
	if lg != nil {
		used := make(map[sharevat.GrantID]time.Time)
		lg.collectUse(used)
		r.v.persistUse(ctx, used)
	}
}

// reloadShare reads a cached share again and, as its own vat did, fences
// its older grants if its epoch moved or ends them all if it was
// deleted. An uncached share is left alone: the next fill reads it.
func (r *registry) reloadShare(ctx context.Context, id sharevat.ShareID) {
	r.loadMu.Lock()
	defer r.loadMu.Unlock()
	r.mu.RLock()
	ls := r.shares[id]
	r.mu.RUnlock()
	if ls == nil {
		return
	}
	sh, err := r.v.store.Share(ctx, id)
	switch {
	case sharevat.ErrorCode(err) == sharevat.ENotFound || err == nil && sh.Deleted:
		r.forgetShare(id)
	case err != nil:
		r.v.log.Warn("re-reading a share after a change failed", "share", id, "err", err)
	case sh.Epoch != ls.epoch:
		r.v.persistUse(ctx, r.fence(id, sh.Epoch))
	}
}

// forgetShare cancels a deleted share's epoch context, and so every live
// grant of it, and forgets them; it returns how many grants it cut.
// Callers hold loadMu.
func (r *registry) forgetShare(id sharevat.ShareID) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ls := r.shares[id]; ls != nil {
		ls.cancel(errDead)
		delete(r.shares, id)
	}
	n := 0
	for gid, lg := range r.grants {
		if lg.g.ShareID == id {
			lg.cancel(errDead)
			delete(r.grants, gid)
			n++
		}
	}
	return n
}

// recheck is get's check while the vat is unsynced: it reads lg's grant
// chain and the shares of its grants again (a fork root's chain reaches
// into the parent share: forkroot.go), ending what the store says is
// dead, and answers errDead if lg is.
func (r *registry) recheck(ctx context.Context, lg *liveGrant) error {
	if err := r.reread(ctx, lg); err != nil {
		return err
	}
	for _, id := range r.chainShares(lg) {
		r.reloadShare(ctx, id)
	}
	if !lg.alive(r.v.now()) {
		return errDead
	}
	return nil
}

// reread reads lg and its cached ancestors again and forgets the first
// one the store says is revoked or gone (its descendants die with it).
func (r *registry) reread(ctx context.Context, lg *liveGrant) error {
	for depth := 0; lg != nil && depth <= maxGrantDepth; depth++ {
		g, err := r.v.store.Grant(ctx, lg.g.ID)
		if sharevat.ErrorCode(err) == sharevat.ENotFound || err == nil && g.Revoked {
			r.forget(ctx, lg.g.ID)
			return errDead
		}
		if err != nil {
			return err
		}
		lg = r.cached(lg.g.Parent)
	}
	return nil
}

// chainShares lists the shares of lg and its cached ancestors, once
// each, admin grants' (none) left out.
func (r *registry) chainShares(lg *liveGrant) []sharevat.ShareID {
	var out []sharevat.ShareID
	for depth := 0; lg != nil && depth <= maxGrantDepth; depth++ {
		if id := lg.g.ShareID; id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
		lg = r.cached(lg.g.Parent)
	}
	return out
}

// cached returns the cached grant id, or nil ("" is nil).
func (r *registry) cached(id sharevat.GrantID) *liveGrant {
	if id == "" {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.grants[id]
}

// cachedGrants and cachedShares list what the registry holds.
func (r *registry) cachedGrants() []*liveGrant {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*liveGrant, 0, len(r.grants))
	for _, lg := range r.grants {
		out = append(out, lg)
	}
	return out
}

func (r *registry) cachedShares() []sharevat.ShareID {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]sharevat.ShareID, 0, len(r.shares))
	for id := range r.shares {
		out = append(out, id)
	}
	return out
}

// checkHeads publishes the stored heads of the shares with
// subscriptions: those past what the vat was told wake their
// subscriptions.
func (v *Vat) checkHeads(ctx context.Context) {
	ids := v.hub.topicIDs()
	if len(ids) == 0 {
		return
	}
	heads, err := v.changes.feed.Heads(ctx, ids)
	if err != nil {
		v.log.Warn("reading the heads of subscribed shares failed", "err", err)
		return
	}
	for id, head := range heads {
		v.hub.publish(id, head)
	}
}

// topicIDs lists the shares with subscriptions.
func (h *hub) topicIDs() []sharevat.ShareID {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]sharevat.ShareID, 0, len(h.topics))
	for id := range h.topics {
		ids = append(ids, id)
	}
	return ids
}

// wakeAll wakes every subscription, to read the store from its cursor.
func (h *hub) wakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.topics {
		close(t.changed)
		t.changed = make(chan struct{})
	}
}

// forget drops a share's cached settings, changed through another vat.
func (c *settingsCache) forget(id sharevat.ShareID) {
	c.fill.Lock()
	defer c.fill.Unlock()
	c.drop(id)
}

// forgetAll drops every cached setting.
func (c *settingsCache) forgetAll() {
	c.fill.Lock()
	defer c.fill.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.m)
}
