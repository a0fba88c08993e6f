package vat

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/wire"
)

// Fork quotas (docs/decisions.md, "Session lifecycle"). Forking makes
// the vat store a copy, new durable state, so it needs append as well as
// read; these bound what one share, one chain of forks and one fork tree
// can make it store, counted by the store in the fork's transaction.
const (
	// DefaultMaxForks is the default of Config.MaxForks: the live shares
	// forked directly from one share.
	DefaultMaxForks = 1000
	// DefaultMaxForkDepth is the default of Config.MaxForkDepth: how long
	// a chain of forks (a fork of a fork of …) may grow.
	DefaultMaxForkDepth = 64
	// DefaultMaxTreeForks is the default of Config.MaxTreeForks: the live
	// forks of one fork tree.
	DefaultMaxTreeForks = 100
	// DefaultMaxTreeForkBytes is the default of Config.MaxTreeForkBytes:
	// the bytes one fork tree's live forks copied.
	DefaultMaxTreeForkBytes = 256 << 20
)

// ForkScope is the right Share.fork needs: read what is copied, and
// append, since the copy is new durable state (docs/decisions.md).
const ForkScope = sharevat.ScopeRead | sharevat.ScopeAppend

// Fork creates a new share holding this share's ops up to a cursor; it
// needs ForkScope. The caller gets the fork's owner capability and token; a
// fork made through a delegated grant dies with that grant (forkroot.go).
func (s *shareServer) Fork(ctx context.Context, call schema.Share_fork) error {
	return s.f.run(ctx, "Share.fork", ForkScope, func(ctx context.Context) error {
		if err := s.f.vat.checkCapRoom(s.f.conn); err != nil {
			return err
		}
		args := call.Args()
		src, err := args.Meta()
		if err != nil {
			return sharevat.Errorf(sharevat.EInvalid, "malformed meta")
		}
		patch, err := wire.ReadMetaPatch(src)
		if err != nil {
			return err
		}
		sh, m, err := s.f.vat.fork(ctx, s.f, sharevat.Cursor(args.AtCursor()), patch)
		if err != nil {
			return err
		}
		return handOver(ctx, s.f.vat, call.AllocResults, s.f.peer, s.f.conn, sh, m)
	})
}

// fork stores the fork of f's share at cursor at, within the fork quotas,
// and audits it.
func (v *Vat) fork(ctx context.Context, f *facet, at sharevat.Cursor, patch sharevat.MetaPatch) (sharevat.Share, sharevat.Minted, error) {
	parentID := f.share()
	parent, err := v.store.Share(ctx, parentID)
	if err != nil {
		return parent, sharevat.Minted{}, err
	}
	if err := v.checkForkDepth(ctx, parent); err != nil {
		return parent, sharevat.Minted{}, err
	}
	sh, err := v.forkRecord(parent, patch)
	if err != nil {
		return sh, sharevat.Minted{}, err
	}
	g, m, err := v.newGrant(sh.ID, forkRootOf(&f.lg.g), sharevat.ScopeOwner, sh.Epoch, time.Time{}, "owner", f.peer)
	if err != nil {
		return sh, m, err
	}
	if sh, err = v.storeFork(ctx, parentID, at, sh, g); err != nil {
		return sh, m, fmt.Errorf("fork: %w", err)
	}
	v.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditFork, ShareID: sh.ID, GrantID: g.ID, Parent: f.lg.g.ID,
		Scope: g.Scope, Epoch: g.Epoch, Peer: f.peer, Result: "ok"})
	return sh, m, nil
}

// storeFork stores the fork within the fork quotas, which the store
// counts in the fork's own transaction, so that concurrent forks, of
// this vat or of others on the same store, cannot pass them.
func (v *Vat) storeFork(ctx context.Context, parent sharevat.ShareID, at sharevat.Cursor, sh sharevat.Share, g sharevat.Grant) (sharevat.Share, error) {
	q := sharevat.ForkQuota{MaxForks: v.cfg.MaxForks, MaxTreeForks: v.cfg.MaxTreeForks, MaxTreeBytes: v.cfg.MaxTreeForkBytes}
	sh, err := v.store.ForkWithin(ctx, parent, at, sh, g, q)
	if sharevat.ErrorCode(err) == sharevat.ETooLarge {
		v.obs.LimitHit(forkLimit(err))
	}
	return sh, err
}

// forkLimit names the fork quota a store's tooLarge refusal hit (by the
// words of sharevat's TreeForksQuotaError and TreeBytesQuotaError).
func forkLimit(err error) string {
	switch msg := sharevat.ErrorMessage(err); {
	case strings.Contains(msg, "fork tree has"):
		return LimitTreeForks
	case strings.Contains(msg, "fork tree holds"):
		return LimitTreeForkBytes
	}
	return LimitForks
}

// forkRecord builds the new share: the parent's metadata and settings,
// overridden by the patch's set fields, idle, created now.
func (v *Vat) forkRecord(parent sharevat.Share, patch sharevat.MetaPatch) (sharevat.Share, error) {
	now := v.now()
	base := parent.Meta
	base.Status, base.CreatedAt, base.StatusAt = sharevat.StatusIdle, now, time.Time{}
	patch.Status = sharevat.StatusUnset
	if err := guardMeta(parent.Settings.Privacy, &patch); err != nil {
		return sharevat.Share{}, err
	}
	meta, err := patch.Apply(base, now)
	if err != nil {
		return sharevat.Share{}, err
	}
	id, err := sturdyref.NewID(v.cfg.Rand)
	if err != nil {
		return sharevat.Share{}, fmt.Errorf("share id: %w", err)
	}
	return sharevat.Share{ID: sharevat.ShareID(id), Meta: meta, Epoch: 1, Settings: parent.Settings, MaxBytes: parent.MaxBytes}, nil
}

// checkForkDepth refuses a fork of parent Config.MaxForkDepth forks deep
// (ETooLarge). The walk reads at most MaxForkDepth shares; deleted
// ancestors count.
func (v *Vat) checkForkDepth(ctx context.Context, parent sharevat.Share) error {
	max := v.cfg.MaxForkDepth
	if max <= 0 {
		return nil
	}
	depth, cur := 0, parent
	for cur.ParentID != "" {
		if depth++; depth >= max {
			v.obs.LimitHit(LimitForkDepth)
			return sharevat.Errorf(sharevat.ETooLarge, "this share is a fork %d deep (the limit is %d); fork an earlier share", depth, max)
		}
		next, err := v.store.Share(ctx, cur.ParentID)
		if err != nil {
			if sharevat.ErrorCode(err) == sharevat.ENotFound {
				return nil
			}
			return err
		}
		cur = next
	}
	return nil
}

// createdResults are the results of a call that creates a share and hands
// over its owner capability: Admin.createShare and Share.fork.
type createdResults interface {
	SetShare(schema.Share) error
	NewOwner() (schema.Minted, error)
	NewInfo() (schema.ShareInfo, error)
}

// handOver answers a new share: its owner capability (on conn), owner
// token and info.
func handOver[R createdResults](ctx context.Context, v *Vat, alloc func() (R, error), peer string, conn *peerConn, sh sharevat.Share, m sharevat.Minted) error {
	lg, err := v.reg.get(ctx, m.GrantID)
	if err != nil {
		return err
	}
	res, err := alloc()
	if err != nil {
		return err
	}
	f := &facet{vat: v, lg: lg, rights: lg.g.Scope, peer: peer, conn: conn}
	share, err := f.shareClient()
	if err != nil {
		return err
	}
	if err := res.SetShare(share); err != nil {
		return err
	}
	return setMintedInfo(res.NewOwner, res.NewInfo, m, sh)
}

// Children lists the live shares forked from this one, oldest first; it
// needs read.
func (s *shareServer) Children(ctx context.Context, call schema.Share_children) error {
	call.Go()
	return s.f.run(ctx, "Share.children", sharevat.ScopeRead, func(ctx context.Context) error {
		kids, err := s.f.vat.store.Children(ctx, s.f.share())
		if err != nil {
			return err
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return wire.SetShareInfos(res.NewShares, kids)
	})
}
