package client

import (
	"context"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// ttlSeconds converts a TTL for the wire; 0 inherits the parent's expiry.
func ttlSeconds(ttl time.Duration) int64 {
	if ttl <= 0 {
		return int64(ttl / time.Second)
	}
	return int64((ttl + time.Second - 1) / time.Second)
}

// Grant mints a token for a narrower right: scope must be a subset of
// this capability's, and the expiry (now+ttl; ttl 0 inherits this
// capability's) no later than its own. The new grant is a child of this
// capability's grant, so revoking that one revokes it too. Hand out the
// token; keep the grant id (Minted.GrantID) to revoke it. Needs delegate.
//
// Errors: EPermissionDenied without delegate, for a scope wider than this
// capability's or an expiry past its own, or at the delegation depth
// limit; EInvalid for an empty scope or a ttl out of range; ETooLarge for
// a label over 256 bytes or at the limit of live children of one grant;
// ERevoked if this capability was revoked or expired.
func (s *Share) Grant(ctx context.Context, scope sharevat.Scope, ttl time.Duration, label string) (sharevat.Minted, error) {
	fut, release := s.cap.Grant(ctx, func(p schema.Share_grant_Params) error {
		sc, err := p.NewScope()
		if err != nil {
			return err
		}
		wire.SetScope(sc, scope)
		p.SetTtlSeconds(ttlSeconds(ttl))
		return p.SetLabel(label)
	})
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Minted{}, fromWire(err)
	}
	return readMinted(res.Minted)
}

func readMinted(get func() (schema.Minted, error)) (sharevat.Minted, error) {
	src, err := get()
	if err != nil {
		return sharevat.Minted{}, err
	}
	return wire.ReadMinted(src)
}

// saveParams fills the (ttlSeconds, label) parameters of every save.
type saveParams interface {
	SetTtlSeconds(int64)
	SetLabel(string) error
}

func setSave[P saveParams](ttl time.Duration, label string) func(P) error {
	return func(p P) error {
		p.SetTtlSeconds(ttlSeconds(ttl))
		return p.SetLabel(label)
	}
}

// Save mints a token for exactly this Share capability's rights: the same
// as Grant with s.Access.Scope. Save is Cap'n Proto's name (Persistent.save)
// for turning a live capability into a sturdy ref, and every capability
// here has it; Grant, on Share only, also narrows the scope. The token is
// a child grant, as with Grant. Needs delegate.
func (s *Share) Save(ctx context.Context, ttl time.Duration, label string) (sharevat.Minted, error) {
	fut, release := s.cap.Save(ctx, setSave[schema.Share_save_Params](ttl, label))
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Minted{}, fromWire(err)
	}
	return readMinted(res.Minted)
}

// Save mints a token that redeems to append-only access to the share: a
// child grant of scope append, as Share.Grant with ScopeAppend would mint.
// Needs delegate on the grant behind this Appender.
func (a *Appender) Save(ctx context.Context, ttl time.Duration, label string) (sharevat.Minted, error) {
	fut, release := a.cap.Save(ctx, setSave[schema.Appender_save_Params](ttl, label))
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Minted{}, fromWire(err)
	}
	return readMinted(res.Minted)
}

// Save mints a token that redeems to read-only access to the share: a
// child grant of scope read, as Share.Grant with ScopeRead would mint.
// Needs delegate on the grant behind this Reader.
func (r *Reader) Save(ctx context.Context, ttl time.Duration, label string) (sharevat.Minted, error) {
	fut, release := r.cap.Save(ctx, setSave[schema.Reader_save_Params](ttl, label))
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Minted{}, fromWire(err)
	}
	return readMinted(res.Minted)
}

// Revoke revokes a grant and everything minted from it. Needs admin, or
// the grant must be this capability's own or below it.
func (s *Share) Revoke(ctx context.Context, id sharevat.GrantID) error {
	fut, release := s.cap.Revoke(ctx, func(p schema.Share_revoke_Params) error { return p.SetGrantId(string(id)) })
	defer release()
	_, err := fut.Struct()
	return fromWire(err)
}

// BumpEpoch invalidates every token of the share minted so far (this
// capability's own included) and returns the new owner token. Needs admin.
func (s *Share) BumpEpoch(ctx context.Context) (sharevat.Minted, sharevat.Epoch, error) {
	fut, release := s.cap.BumpEpoch(ctx, nil)
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return sharevat.Minted{}, 0, fromWire(err)
	}
	m, err := readMinted(res.Owner)
	return m, sharevat.Epoch(res.Epoch()), err
}

// Grants returns the delegation tree ("who has access"), never secrets:
// the whole tree for an admin capability, else this capability's own
// subtree.
func (s *Share) Grants(ctx context.Context) ([]sharevat.Grant, error) {
	fut, release := s.cap.Grants(ctx, nil)
	defer release()
	res, err := fut.Struct()
	if err != nil {
		return nil, fromWire(err)
	}
	l, err := res.Grants()
	if err != nil {
		return nil, err
	}
	return wire.ReadGrantInfos(l)
}
