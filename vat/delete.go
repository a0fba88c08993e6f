package vat

import (
	"context"
	"fmt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// Delete deletes the share; it needs admin. Every grant of the share
// dies with it, the caller's own included, as with an epoch bump.
func (s *shareServer) Delete(ctx context.Context, call schema.Share_delete) error {
	return s.f.run(ctx, "Share.delete", sharevat.ScopeAdmin, func(ctx context.Context) error {
		return s.f.vat.deleteShare(ctx, s.f)
	})
}

// deleteShare deletes f's share in the store (which revokes its grants
// and removes its log, state and op-id index), ends everything live on
// it, forgets its settings, and audits it.
func (v *Vat) deleteShare(ctx context.Context, f *facet) error {
	id := f.share()
	v.settings.fill.Lock()
	defer v.settings.fill.Unlock()
	n, err := v.reg.remove(ctx, id)
	if err != nil {
		return err
	}
	v.settings.drop(id)
	v.forgetBytes(id)
	v.obs.Revoked(n)
	v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditDelete, ShareID: id, GrantID: f.lg.g.ID, Scope: f.rights,
		Epoch: f.lg.g.Epoch, Peer: f.peer, Result: "ok"})
	v.log.Info("share deleted", "share", id, "grant", f.lg.g.ID)
	return nil
}

// remove deletes share id in the store and then, exactly as fence does
// for an epoch bump, cancels its epoch context — and so every live grant
// of it, their in-flight calls and their subscriptions, which end with
// code revoked — and forgets it, holding loadMu across both steps so no
// cache fill can slip a live entry in between. Later fills find the
// share deleted and its grants revoked. It returns how many live grants
// it cut.
func (r *registry) remove(ctx context.Context, id sharevat.ShareID) (int, error) {
	r.loadMu.Lock()
	defer r.loadMu.Unlock()
	if err := r.v.store.Delete(ctx, id, r.v.now()); err != nil {
		return 0, fmt.Errorf("delete: %w", err)
	}
	return r.forgetShare(id), nil
}
