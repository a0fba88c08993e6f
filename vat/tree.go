package vat

import (
	"context"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// Grants returns the delegation tree: every grant of the share for an
// admin capability, else the caller's own subtree. Never secrets.
func (s *shareServer) Grants(ctx context.Context, call schema.Share_grants) error {
	call.Go()
	return s.f.run(ctx, "Share.grants", 0, func(ctx context.Context) error {
		shown, err := s.f.visibleGrants(ctx)
		if err != nil {
			return err
		}
		s.f.vat.freshen(ctx, s.f.share(), shown)
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return wire.SetGrantInfos(res.NewGrants, shown)
	})
}

// visibleGrants returns what Grants shows the facet: the whole share for
// admin, else the facet's grant and everything minted below it (read
// through the store's parent index, so it costs what the subtree costs).
func (f *facet) visibleGrants(ctx context.Context) ([]sharevat.Grant, error) {
	if f.rights.Has(sharevat.ScopeAdmin) {
		return f.vat.store.Grants(ctx, f.share())
	}
	below, err := f.vat.store.Subtree(ctx, f.lg.g.ID)
	return ofShare(below, f.share()), err
}

// ofShare keeps the grants of share: a subtree also holds the roots of
// forks made through its grants (forkroot.go), which are another share's.
func ofShare(grants []sharevat.Grant, share sharevat.ShareID) []sharevat.Grant {
	out := grants[:0]
	for _, g := range grants {
		if g.ShareID == share {
			out = append(out, g)
		}
	}
	return out
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

// revoke revokes grant id of the facet's share and its whole subtree,
// if the facet has admin or id is its own grant or below it.
func (f *facet) revoke(ctx context.Context, id sharevat.GrantID) error {
	below, err := f.vat.store.Subtree(ctx, id)
	if err != nil && sharevat.ErrorCode(err) != sharevat.ENotFound {
		return err
	}
	target := find(below, id)
	if target == nil || target.ShareID != f.share() {
		return sharevat.Errorf(sharevat.ENotFound, "no grant %s on this share", quoteID(string(id)))
	}
	if !f.rights.Has(sharevat.ScopeAdmin) {
		if err := f.checkBelow(ctx, target); err != nil {
			return err
		}
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

// checkBelow fails with permissionDenied unless g is the facet's grant
// or below it, walking g's parents (at most maxGrantDepth of them).
func (f *facet) checkBelow(ctx context.Context, g *sharevat.Grant) error {
	cur := *g
	for range maxGrantDepth + 1 {
		if cur.ID == f.lg.g.ID {
			return nil
		}
		if cur.Parent == "" {
			break
		}
		var err error
		if cur, err = f.vat.store.Grant(ctx, cur.Parent); err != nil {
			if sharevat.ErrorCode(err) == sharevat.ENotFound {
				break
			}
			return err
		}
	}
	return sharevat.Errorf(sharevat.EPermissionDenied, "grant %s is not yours to revoke (needs admin, or a grant below your own)", g.ID)
}

// find returns the grant id of grants, or nil.
func find(grants []sharevat.Grant, id sharevat.GrantID) *sharevat.Grant {
	for i := range grants {
		if grants[i].ID == id {
			return &grants[i]
		}
	}
	return nil
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
	sh, err := v.reg.bump(ctx, share, func(old sharevat.Share) (sharevat.Grant, error) {
		parent, err := v.ownerParent(ctx, old.OwnerRoot) // forkroot.go
		if err != nil {
			return sharevat.Grant{}, err
		}
		g, minted, err := v.newGrant(share, parent, sharevat.ScopeOwner, old.Epoch+1, time.Time{}, "owner", peer)
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
