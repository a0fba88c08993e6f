package vat

import (
	"context"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/wire"
)

// adminServer is the Admin capability. lg is the admin grant it was
// redeemed from, re-checked on every call; a nil lg is the create-only
// Admin of an --open server.
type adminServer struct {
	vat  *Vat
	lg   *liveGrant
	peer string
	conn *peerConn
}

var _ schema.Admin_Server = (*adminServer)(nil)

// check re-validates the admin grant; the open Admin may only create.
func (a *adminServer) check(ctx context.Context, needGrant bool) error {
	if a.lg == nil {
		if needGrant {
			return sharevat.Errorf(sharevat.EPermissionDenied, "an open-server Admin may only create shares")
		}
		return nil
	}
	if !a.lg.alive(a.vat.now()) {
		return sharevat.Errorf(sharevat.ERevoked, "admin capability revoked")
	}
	if needGrant && isCreator(&a.lg.g) {
		return sharevat.Errorf(sharevat.EPermissionDenied, "a creation token may only create shares")
	}
	return nil
}

// CreateShare creates a share and mints its owner token.
func (a *adminServer) CreateShare(ctx context.Context, call schema.Admin_createShare) error {
	return a.vat.guard(ctx, "Admin.createShare", func() error {
		if err := a.check(ctx, false); err != nil {
			return err
		}
		if err := a.vat.checkCapRoom(a.conn); err != nil {
			return err
		}
		if err := a.checkCreator(); err != nil {
			return err
		}
		sh, _, m, err := a.vat.createShare(ctx, call.Args(), a.peer, a.bytesPerShare())
		if err != nil {
			return err
		}
		return handOver(ctx, a.vat, call.AllocResults, a.peer, a.conn, sh, m)
	})
}

// createShare stores a new share with an owner grant at epoch 1, which
// may hold maxBytes bytes of ops (0: no limit; sharebytes.go).
func (v *Vat) createShare(ctx context.Context, args schema.Admin_createShare_Params, peer string, maxBytes int64) (sharevat.Share, sharevat.Grant, sharevat.Minted, error) {
	sh, err := v.newShare(args)
	if err != nil {
		return sh, sharevat.Grant{}, sharevat.Minted{}, err
	}
	sh.MaxBytes = maxBytes
	g, m, err := v.newGrant(sh.ID, "", sharevat.ScopeOwner, sh.Epoch, time.Time{}, "owner", peer)
	if err != nil {
		return sh, g, m, err
	}
	sh.OwnerRoot = g.ID
	if err := v.store.CreateShare(ctx, sh, g); err != nil {
		return sh, g, m, fmt.Errorf("create share: %w", err)
	}
	v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditCreate, ShareID: sh.ID, GrantID: g.ID, Scope: g.Scope, Epoch: g.Epoch, Peer: peer, Result: "ok"})
	return sh, g, m, nil
}

// newShare builds the share record from the caller's metadata.
func (v *Vat) newShare(args schema.Admin_createShare_Params) (sharevat.Share, error) {
	src, err := args.Meta()
	if err != nil {
		return sharevat.Share{}, sharevat.Errorf(sharevat.EInvalid, "malformed meta")
	}
	patch, err := wire.ReadMetaPatch(src)
	if err != nil {
		return sharevat.Share{}, err
	}
	if err := guardMeta(sharevat.PrivacyRedact, &patch); err != nil { // a new share's policy
		return sharevat.Share{}, err
	}
	now := v.now()
	meta, err := patch.Apply(sharevat.Meta{Status: sharevat.StatusIdle, CreatedAt: now}, now)
	if err != nil {
		return sharevat.Share{}, err
	}
	id, err := sturdyref.NewID(v.cfg.Rand)
	if err != nil {
		return sharevat.Share{}, fmt.Errorf("share id: %w", err)
	}
	return sharevat.Share{ID: sharevat.ShareID(id), Meta: meta, Epoch: 1}, nil
}

// List answers one page of the shares that match the filter, newest
// update first, and the next page's token; a null filter lists the first
// page of every live share.
func (a *adminServer) List(ctx context.Context, call schema.Admin_list) error {
	call.Go()
	return a.vat.guard(ctx, "Admin.list", func() error {
		if err := a.check(ctx, true); err != nil {
			return err
		}
		var f sharevat.ListFilter
		if args := call.Args(); args.HasFilter() {
			src, err := args.Filter()
			if err != nil {
				return sharevat.Errorf(sharevat.EInvalid, "malformed filter")
			}
			if f, err = wire.ReadListFilter(src); err != nil {
				return err
			}
		}
		shares, next, err := a.vat.store.ListShares(ctx, f)
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		if err := res.SetNextPageToken(next); err != nil {
			return err
		}
		return wire.SetShareInfos(res.NewShares, shares)
	})
}

// setMintedInfo fills the (minted, info) result pair.
func setMintedInfo(newMinted func() (schema.Minted, error), newInfo func() (schema.ShareInfo, error),
	m sharevat.Minted, sh sharevat.Share) error {
	dst, err := newMinted()
	if err != nil {
		return err
	}
	if err := wire.SetMinted(dst, m); err != nil {
		return err
	}
	info, err := newInfo()
	if err != nil {
		return err
	}
	return wire.SetShareInfo(info, sh)
}

// ResetOwner bumps a share's epoch and mints a new owner token: the
// server admin's way back to a share whose owner token was lost.
func (a *adminServer) ResetOwner(ctx context.Context, call schema.Admin_resetOwner) error {
	return a.vat.guard(ctx, "Admin.resetOwner", func() error {
		if err := a.check(ctx, true); err != nil {
			return err
		}
		id, err := call.Args().ShareId()
		if err != nil || id == "" {
			return sharevat.Errorf(sharevat.EInvalid, "a share id is required")
		}
		sh, m, err := a.vat.bumpEpoch(ctx, sharevat.ShareID(id), a.lg.g.ID, a.peer)
		if sharevat.ErrorCode(err) == sharevat.ENotFound {
			return sharevat.Errorf(sharevat.ENotFound, "no share %s", quoteID(id))
		}
		if err != nil {
			return err
		}
		return setBumped(call.AllocResults, sh.Epoch, m)
	})
}

// Statuses answers the status of every live share, ordered by id.
func (a *adminServer) Statuses(ctx context.Context, call schema.Admin_statuses) error {
	call.Go()
	return a.vat.guard(ctx, "Admin.statuses", func() error {
		if err := a.check(ctx, true); err != nil {
			return err
		}
		sts, err := a.vat.store.Statuses(ctx)
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return wire.SetShareStatuses(res.NewStatuses, sts)
	})
}

// quoteID is a caller's share or grant id as an error may quote it: only
// a well-formed id. Anything else is not quoted: a token pasted where an
// id belongs would come back whole in the error (and the CLI's output).
func quoteID(id string) string {
	if sturdyref.ValidID(id) {
		return id
	}
	return "(malformed id)"
}
