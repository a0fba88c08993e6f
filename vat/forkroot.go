package vat

import (
	"context"

	"github.com/sharevat/sharevat"
)

// Fork roots. What a grant's holder makes through the grant dies with
// it, as the grants it mints do (docs/design.md §3, "fork"). A fork made
// through a delegated grant (one with a parent) is therefore owned by a
// fork root: the fork's owner grant, of the fork's share and epoch, whose
// Parent is the forking grant, of the parent share. Revoking the forking
// grant (or anything above it, an epoch bump of its share, the deletion
// of its share, its expiry) kills the fork root and everything below it,
// on every live connection: the store's Subtree walks the parent links
// across shares, and the registry derives the fork root's context from
// the forking grant's as well as from its own share's epoch.
//
// A fork made by a share's owner root (a grant with no parent) is owned
// by a root grant, as a created share is: the owner's forks outlive its
// epoch bumps and the parent's deletion. An epoch bump of a fork keeps
// its owner's link (ownerParent), so bumping cannot free a fork from the
// grant it was made through.

// forkRootOf is the Parent of the owner grant of a fork made through g:
// g itself if g has a parent (delegated, or a fork root), else none.
func forkRootOf(g *sharevat.Grant) sharevat.GrantID {
	if g.Parent == "" {
		return ""
	}
	return g.ID
}

// ownerParent is the Parent a share's next owner grant keeps: the
// current owner root's, when it is a fork root (its parent is of
// another share), else none.
func (v *Vat) ownerParent(ctx context.Context, ownerRoot sharevat.GrantID) (sharevat.GrantID, error) {
	if ownerRoot == "" {
		return "", nil
	}
	g, err := v.store.Grant(ctx, ownerRoot)
	if err != nil || g.Parent == "" {
		return "", err
	}
	p, err := v.store.Grant(ctx, g.Parent)
	if err != nil {
		return "", err
	}
	if p.ShareID == g.ShareID {
		return "", nil
	}
	return g.Parent, nil
}

// forkRootParent is the live parent of fork root g, whose parent grant p
// is of another share: g lives while p lives (its context and expiry)
// and while g's share is at g's epoch (also). A fork root's delegation
// depth starts anew: it is the root of its share's tree.
func (r *registry) forkRootParent(ctx context.Context, g *sharevat.Grant, p *liveGrant) (parent, error) {
	ls, err := r.share(ctx, g.ShareID)
	if err != nil {
		return parent{}, err
	}
	if ls.epoch != g.Epoch {
		return parent{}, errDead
	}
	return parent{ctx: p.ctx, also: ls.ctx, expires: p.expires, depth: -1}, nil
}
