package wire

import (
	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
)

// SetMinted writes a freshly minted token into dst.
func SetMinted(dst schema.Minted, m sharevat.Minted) error {
	var e errs
	e.do(dst.SetToken(m.Token))
	e.do(dst.SetGrantId(string(m.GrantID)))
	sc, err := dst.NewScope()
	e.do(err)
	if err == nil {
		SetScope(sc, m.Scope)
	}
	dst.SetExpiresAt(Nanos(m.ExpiresAt))
	return e.err
}

// ReadMinted decodes a minted token.
func ReadMinted(src schema.Minted) (sharevat.Minted, error) {
	var e errs
	m := sharevat.Minted{Token: e.text(src.Token), GrantID: sharevat.GrantID(e.text(src.GrantId)), ExpiresAt: Time(src.ExpiresAt())}
	sc, err := src.Scope()
	e.do(err)
	m.Scope = ReadScope(sc)
	return m, invalid("minted token", e.err)
}

// SetAccess writes a capability's access into dst.
func SetAccess(dst schema.Access, a sharevat.Access) error {
	var e errs
	e.do(dst.SetGrantId(string(a.GrantID)))
	sc, err := dst.NewScope()
	e.do(err)
	if err == nil {
		SetScope(sc, a.Scope)
	}
	dst.SetEpoch(uint64(a.Epoch))
	dst.SetExpiresAt(Nanos(a.ExpiresAt))
	return e.err
}

// ReadAccess decodes an access struct.
func ReadAccess(src schema.Access) (sharevat.Access, error) {
	var e errs
	a := sharevat.Access{GrantID: sharevat.GrantID(e.text(src.GrantId)), Epoch: sharevat.Epoch(src.Epoch()), ExpiresAt: Time(src.ExpiresAt())}
	sc, err := src.Scope()
	e.do(err)
	a.Scope = ReadScope(sc)
	return a, invalid("access", e.err)
}

// SetGrantInfos fills a new list with grants, never their verifiers.
func SetGrantInfos(newList func(int32) (schema.GrantInfo_List, error), grants []sharevat.Grant) error {
	l, err := newList(int32(len(grants)))
	for i := 0; err == nil && i < len(grants); i++ {
		err = setGrantInfo(l.At(i), &grants[i])
	}
	return err
}

func setGrantInfo(dst schema.GrantInfo, g *sharevat.Grant) error {
	var e errs
	e.do(dst.SetId(string(g.ID)))
	e.do(dst.SetParent(string(g.Parent)))
	sc, err := dst.NewScope()
	e.do(err)
	if err == nil {
		SetScope(sc, g.Scope)
	}
	e.do(dst.SetLabel(g.Label))
	dst.SetEpoch(uint64(g.Epoch))
	e.do(dst.SetCreatedBy(g.CreatedBy))
	dst.SetCreatedAt(Nanos(g.CreatedAt))
	dst.SetLastUsedAt(Nanos(g.LastUsed))
	dst.SetExpiresAt(Nanos(g.ExpiresAt))
	dst.SetRevoked(g.Revoked)
	dst.SetRevokedAt(Nanos(g.RevokedAt))
	return e.err
}

// ReadGrantInfos decodes the delegation tree (without verifiers).
func ReadGrantInfos(l schema.GrantInfo_List) ([]sharevat.Grant, error) {
	var e errs
	out := make([]sharevat.Grant, l.Len())
	for i := range out {
		src := l.At(i)
		sc, err := src.Scope()
		e.do(err)
		out[i] = sharevat.Grant{
			ID: sharevat.GrantID(e.text(src.Id)), Parent: sharevat.GrantID(e.text(src.Parent)),
			Scope: ReadScope(sc), Label: e.text(src.Label), Epoch: sharevat.Epoch(src.Epoch()),
			CreatedBy: e.text(src.CreatedBy), CreatedAt: Time(src.CreatedAt()), LastUsed: Time(src.LastUsedAt()),
			ExpiresAt: Time(src.ExpiresAt()), Revoked: src.Revoked(), RevokedAt: Time(src.RevokedAt()),
		}
	}
	return out, invalid("grants", e.err)
}
