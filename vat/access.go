package vat

import (
	"context"
	"errors"

	"sharevat"
)

// facet is the authority behind one live capability: a grant on a share,
// as seen from one peer. Share, Appender and Reader objects all carry one;
// capabilities they hand out carry the same grant, so revoking it cuts
// them all.
type facet struct {
	vat   *Vat
	share sharevat.ShareID
	grant sharevat.GrantID
	scope sharevat.Scope
	peer  string
}

// maxGrantDepth bounds the ancestor walk; a deeper chain is corrupt.
const maxGrantDepth = 64

// check re-validates the grant before a call and requires the rights in
// need. A dead grant is ERevoked; a live one without the rights is
// EPermissionDenied.
func (f *facet) check(ctx context.Context, need sharevat.Scope) (sharevat.Share, sharevat.Grant, error) {
	sh, g, err := f.vat.validGrant(ctx, f.grant)
	if err != nil {
		if errors.Is(err, sharevat.ErrRevoked) {
			return sh, g, sharevat.Errorf(sharevat.ERevoked, "capability revoked or expired")
		}
		return sh, g, err
	}
	if !g.Scope.Has(need) {
		return sh, g, sharevat.Errorf(sharevat.EPermissionDenied, "needs %s; this capability has %s", need, g.Scope)
	}
	return sh, g, nil
}

// access describes the facet's own rights for the wire.
func (f *facet) access(g sharevat.Grant) sharevat.Access {
	return sharevat.Access{GrantID: g.ID, Scope: g.Scope, Epoch: g.Epoch, ExpiresAt: g.ExpiresAt}
}

// validGrant loads a share grant and checks DESIGN.md §4 validity: it
// exists, neither it nor an ancestor is revoked, it has not expired, its
// epoch is the share's, and the share is not deleted. Any failure is
// ERevoked (callers at restore turn it into EUnauthorized).
func (v *Vat) validGrant(ctx context.Context, id sharevat.GrantID) (sharevat.Share, sharevat.Grant, error) {
	g, err := v.liveChain(ctx, id)
	if err != nil {
		return sharevat.Share{}, g, err
	}
	if g.IsAdmin() {
		return sharevat.Share{}, g, sharevat.ErrRevoked
	}
	sh, err := v.store.Share(ctx, g.ShareID)
	if err != nil {
		return sh, g, deadIfNotFound(err)
	}
	if sh.Deleted || sh.Epoch != g.Epoch {
		return sh, g, sharevat.ErrRevoked
	}
	return sh, g, nil
}

// liveChain loads grant id and walks its ancestors: each must exist, be
// unrevoked and unexpired.
func (v *Vat) liveChain(ctx context.Context, id sharevat.GrantID) (sharevat.Grant, error) {
	now := v.now()
	var first sharevat.Grant
	for depth := 0; id != "" && depth < maxGrantDepth; depth++ {
		g, err := v.store.Grant(ctx, id)
		if err != nil {
			return first, deadIfNotFound(err)
		}
		if depth == 0 {
			first = g
		}
		if g.Revoked || g.Expired(now) {
			return first, sharevat.ErrRevoked
		}
		id = g.Parent
	}
	if id != "" {
		return first, sharevat.ErrRevoked
	}
	return first, nil
}

func deadIfNotFound(err error) error {
	if sharevat.ErrorCode(err) == sharevat.ENotFound {
		return sharevat.ErrRevoked
	}
	return err
}
