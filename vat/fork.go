package vat

import (
	"context"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/wire"
)

// Fork quotas (docs/decisions.md, "Session lifecycle"). Forking needs
// only read, so a reader can make the vat store new shares; these bound
// what one share, and one chain of forks, can make it store.
const (
	// DefaultMaxForks is the default of Config.MaxForks: the live shares
	// forked directly from one share.
	DefaultMaxForks = 1000
	// DefaultMaxForkDepth is the default of Config.MaxForkDepth: how long
	// a chain of forks (a fork of a fork of …) may grow.
	DefaultMaxForkDepth = 64
)

// forkLocks serialize the forks of one parent (by hash), so that two
// concurrent forks cannot both pass the quota check.
type forkLocks [64]sync.Mutex

func (l *forkLocks) of(id sharevat.ShareID) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(id))
	return &l[h.Sum32()%uint32(len(l))]
}

// Fork creates a new share holding this share's ops up to a cursor; it
// needs read. The caller gets the fork's owner capability and token; a
// fork made through a delegated grant dies with that grant (forkroot.go).
func (s *shareServer) Fork(ctx context.Context, call schema.Share_fork) error {
	return s.f.run(ctx, "Share.fork", sharevat.ScopeRead, func(ctx context.Context) error {
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
	mu := v.forks.of(parentID)
	mu.Lock()
	defer mu.Unlock()
	parent, err := v.store.Share(ctx, parentID)
	if err != nil {
		return parent, sharevat.Minted{}, err
	}
	if err := v.checkForkQuota(ctx, parent); err != nil {
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

// storeFork stores the fork; a store several vats share counts the
// parent's live forks in the same transaction (sharevat.BoundedForker),
// as this vat's lock cannot serialize the others' forks.
func (v *Vat) storeFork(ctx context.Context, parent sharevat.ShareID, at sharevat.Cursor, sh sharevat.Share, g sharevat.Grant) (sharevat.Share, error) {
	bf, ok := v.store.(sharevat.BoundedForker)
	if !ok || v.cfg.MaxForks <= 0 {
		return v.store.Fork(ctx, parent, at, sh, g)
	}
	sh, err := bf.ForkWithin(ctx, parent, at, sh, g, v.cfg.MaxForks)
	if sharevat.ErrorCode(err) == sharevat.ETooLarge {
		v.obs.LimitHit(LimitForks)
	}
	return sh, err
}

// forkRecord builds the new share: the parent's metadata and settings,
// overridden by the patch's set fields, idle, created now.
func (v *Vat) forkRecord(parent sharevat.Share, patch sharevat.MetaPatch) (sharevat.Share, error) {
	now := v.now()
	base := parent.Meta
	base.Status, base.CreatedAt, base.StatusAt = sharevat.StatusIdle, now, time.Time{}
	patch.Status = sharevat.StatusUnset
	meta, err := patch.Apply(base, now)
	if err != nil {
		return sharevat.Share{}, err
	}
	id, err := sturdyref.NewID(v.cfg.Rand)
	if err != nil {
		return sharevat.Share{}, fmt.Errorf("share id: %w", err)
	}
	return sharevat.Share{ID: sharevat.ShareID(id), Meta: meta, Epoch: 1, Settings: parent.Settings}, nil
}

// checkForkQuota refuses a fork past Config.MaxForks live forks of
// parent or Config.MaxForkDepth forks deep (ETooLarge). The depth walk
// reads at most MaxForkDepth shares; deleted ancestors count. A
// BoundedForker store counts the forks itself, in the fork (storeFork).
func (v *Vat) checkForkQuota(ctx context.Context, parent sharevat.Share) error {
	_, counts := v.store.(sharevat.BoundedForker)
	if n := v.cfg.MaxForks; n > 0 && !counts {
		kids, err := v.store.Children(ctx, parent.ID)
		if err != nil {
			return err
		}
		if len(kids) >= n {
			v.obs.LimitHit(LimitForks)
			return sharevat.ForkQuotaError(len(kids), n)
		}
	}
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
