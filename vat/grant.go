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

// Bounds on minting input.
const (
	maxLabel = 256                        // bytes of a grant label
	maxTTL   = 100 * 365 * 24 * time.Hour // longest ttl accepted
)

// Grant mints an attenuated token; it needs delegate.
func (s *shareServer) Grant(ctx context.Context, call schema.Share_grant) error {
	return s.f.run(ctx, "Share.grant", sharevat.ScopeDelegate, func(ctx context.Context) error {
		args := call.Args()
		src, err := args.Scope()
		if err != nil {
			return sharevat.Errorf(sharevat.EInvalid, "malformed scope")
		}
		m, err := s.f.mint(ctx, wire.ReadScope(src), args.TtlSeconds(), args.Label)
		if err != nil {
			return err
		}
		return setMinted(call.AllocResults, m)
	})
}

// Save mints a token for exactly this Share's rights; it needs delegate.
func (s *shareServer) Save(ctx context.Context, call schema.Share_save) error {
	return s.f.run(ctx, "Share.save", sharevat.ScopeDelegate, func(ctx context.Context) error {
		return save(ctx, s.f, s.f.rights, call.Args(), call.AllocResults)
	})
}

// saveArgs are the parameters every save takes.
type saveArgs interface {
	TtlSeconds() int64
	Label() (string, error)
}

type mintedResults interface{ NewMinted() (schema.Minted, error) }

// save mints a token of the given scope for a save call.
func save[R mintedResults](ctx context.Context, f *facet, scope sharevat.Scope, args saveArgs, alloc func() (R, error)) error {
	m, err := f.mint(ctx, scope, args.TtlSeconds(), args.Label)
	if err != nil {
		return err
	}
	return setMinted(alloc, m)
}

func setMinted[R mintedResults](alloc func() (R, error), m sharevat.Minted) error {
	res, err := alloc()
	if err != nil {
		return err
	}
	dst, err := res.NewMinted()
	if err != nil {
		return err
	}
	return wire.SetMinted(dst, m)
}

// mint creates a child of the facet's grant with the given scope and ttl
// (seconds; 0 inherits the parent's expiry), after the attenuation rules
// and within the quota of live children (Config.MaxChildGrants).
func (f *facet) mint(ctx context.Context, scope sharevat.Scope, ttlSeconds int64, label func() (string, error)) (sharevat.Minted, error) {
	ttl, lbl, err := mintInput(ttlSeconds, label)
	if err != nil {
		return sharevat.Minted{}, err
	}
	if lbl, err = f.guardLabel(ctx, lbl); err != nil {
		return sharevat.Minted{}, err
	}
	if f.lg.depth+1 >= maxGrantDepth {
		return sharevat.Minted{}, sharevat.Errorf(sharevat.EPermissionDenied, "delegation chain is at its limit of %d", maxGrantDepth)
	}
	expires, err := sturdyref.Attenuate(f.rights, f.lg.expires, scope, ttl, f.vat.now())
	if err != nil {
		return sharevat.Minted{}, err
	}
	parent := &f.lg.g
	g, m, err := f.vat.newGrant(parent.ShareID, parent.ID, scope, parent.Epoch, expires, lbl, f.peer)
	if err != nil {
		return m, err
	}
	if err := f.vat.store.CreateChild(ctx, g, f.vat.cfg.MaxChildGrants); err != nil {
		return sharevat.Minted{}, fmt.Errorf("mint: %w", err)
	}
	f.vat.audit(ctx, sharevat.AuditRecord{Action: sharevat.AuditMint, ShareID: g.ShareID, GrantID: g.ID,
		Parent: g.Parent, Scope: g.Scope, Epoch: g.Epoch, Peer: f.peer, Result: "ok"})
	return m, nil
}

// mintInput checks a ttl and label from the wire.
func mintInput(ttlSeconds int64, label func() (string, error)) (time.Duration, string, error) {
	if ttlSeconds < 0 || ttlSeconds > int64(maxTTL/time.Second) {
		return 0, "", sharevat.Errorf(sharevat.EInvalid, "ttl must be 0 (inherit) to %d seconds", int64(maxTTL/time.Second))
	}
	lbl, err := label()
	if err != nil {
		return 0, "", sharevat.Errorf(sharevat.EInvalid, "malformed label")
	}
	if len(lbl) > maxLabel {
		return 0, "", sharevat.Errorf(sharevat.ETooLarge, "label is %d bytes; limit is %d", len(lbl), maxLabel)
	}
	return time.Duration(ttlSeconds) * time.Second, lbl, nil
}
