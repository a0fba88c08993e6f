package vat

import (
	"context"
	"time"

	"sharevat"
	"sharevat/schema"
	"sharevat/wire"
)

// Grants returns the delegation tree: every grant of the share for an
// admin capability, else the caller's own subtree. Never secrets.
func (s *shareServer) Grants(ctx context.Context, call schema.Share_grants) error {
	call.Go()
	return s.f.run(ctx, "Share.grants", 0, func(ctx context.Context) error {
		all, err := s.f.vat.store.Grants(ctx, s.f.share())
		if err != nil {
			return err
		}
		shown := all
		if !s.f.rights.Has(sharevat.ScopeAdmin) {
			shown = subtree(all, s.f.lg.g.ID)
		}
		s.f.vat.freshen(ctx, s.f.share(), shown)
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return wire.SetGrantInfos(res.NewGrants, shown)
	})
}

// freshen merges the in-memory last-use times into grants, and saves
// them to the store while at it.
func (v *Vat) freshen(ctx context.Context, share sharevat.ShareID, grants []sharevat.Grant) {
	used := v.reg.usage(share)
	v.persistUse(ctx, used)
	for i := range grants {
		if t, ok := used[grants[i].ID]; ok && t.After(grants[i].LastUsed) {
			grants[i].LastUsed = t
		}
		grants[i].Verifier = nil
	}
}

// subtree returns root and every grant below it, in the order of all.
func subtree(all []sharevat.Grant, root sharevat.GrantID) []sharevat.Grant {
	in := map[sharevat.GrantID]bool{root: true}
	for changed := true; changed; {
		changed = false
		for _, g := range all {
			if !in[g.ID] && in[g.Parent] {
				in[g.ID], changed = true, true
			}
		}
	}
	var out []sharevat.Grant
	for _, g := range all {
		if in[g.ID] {
			out = append(out, g)
		}
	}
	return out
}

// Revoke revokes a grant and its whole subtree. It needs admin, or the
// grant must be the caller's own or below it.
func (s *shareServer) Revoke(ctx context.Context, call schema.Share_revoke) error {
	return s.f.run(ctx, "Share.revoke", 0, func(ctx context.Context) error {
		id, err := call.Args().GrantId()
		if err != nil {
			return sharevat.Errorf(sharevat.EInvalid, "malformed grant id")
		}
		return s.f.revoke(ctx, sharevat.GrantID(id))
	})
}

func (f *facet) revoke(ctx context.Context, id sharevat.GrantID) error {
	all, err := f.vat.store.Grants(ctx, f.share())
	if err != nil {
		return err
	}
	below := subtree(all, id)
	if !contains(below, id) {
		return sharevat.Errorf(sharevat.ENotFound, "no grant %s on this share", id)
	}
	own := subtree(all, f.lg.g.ID)
	if !f.rights.Has(sharevat.ScopeAdmin) && !contains(own, id) {
		return sharevat.Errorf(sharevat.EPermissionDenied, "grant %s is not yours to revoke (needs admin, or a grant below your own)", id)
	}
	ids := make([]sharevat.GrantID, len(below))
	for i := range below {
		ids[i] = below[i].ID
	}
	if err := f.vat.reg.revoke(ctx, ids); err != nil {
		return err
	}
	f.vat.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditRevoke, ShareID: f.share(), GrantID: id,
		Parent: f.lg.g.ID, Epoch: f.lg.g.Epoch, Peer: f.peer, Result: "ok"})
	return nil
}

func contains(grants []sharevat.Grant, id sharevat.GrantID) bool {
	for _, g := range grants {
		if g.ID == id {
			return true
		}
	}
	return false
}

// BumpEpoch invalidates every grant of the share minted so far, the
// caller's own included, and returns a new owner token. It needs admin.
func (s *shareServer) BumpEpoch(ctx context.Context, call schema.Share_bumpEpoch) error {
	return s.f.run(ctx, "Share.bumpEpoch", sharevat.ScopeAdmin, func(ctx context.Context) error {
		sh, m, err := s.f.vat.bumpEpoch(ctx, s.f.share(), s.f.lg.g.ID, s.f.peer)
		if err != nil {
			return err
		}
		return setBumped(call.AllocResults, sh.Epoch, m)
	})
}

// bumpEpoch advances a share's epoch with a new owner grant and audits it
// (by is the grant that asked: a share admin's, or the server admin's).
func (v *Vat) bumpEpoch(ctx context.Context, share sharevat.ShareID, by sharevat.GrantID, peer string) (sharevat.Share, sharevat.Minted, error) {
	var m sharevat.Minted
	sh, err := v.reg.bump(ctx, share, func(epoch sharevat.Epoch) (sharevat.Grant, error) {
		g, minted, err := v.newGrant(share, "", sharevat.ScopeOwner, epoch, time.Time{}, "owner", peer)
		m = minted
		return g, err
	})
	if err != nil {
		return sh, m, err
	}
	v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditBump, ShareID: sh.ID, GrantID: m.GrantID,
		Parent: by, Scope: sharevat.ScopeOwner, Epoch: sh.Epoch, Peer: peer, Result: "ok"})
	return sh, m, nil
}

// bumpResults is what bumpEpoch and resetOwner answer.
type bumpResults interface {
	SetEpoch(uint64)
	NewOwner() (schema.Minted, error)
}

func setBumped[R bumpResults](alloc func() (R, error), epoch sharevat.Epoch, m sharevat.Minted) error {
	res, err := alloc()
	if err != nil {
		return err
	}
	res.SetEpoch(uint64(epoch))
	dst, err := res.NewOwner()
	if err != nil {
		return err
	}
	return wire.SetMinted(dst, m)
}
