package gate

import (
	"context"
	"errors"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// ErrToken is the one answer to every failure of a token, whatever its
// cause (none, malformed, unknown, wrong secret, revoked, expired): the
// vat's own redeem answer.
var ErrToken = sharevat.Errorf(sharevat.EUnauthorized, "invalid or expired token")

// Vault redeems tokens on the vat's in-process Vault, as /rpc does: the
// same rights checks, audit record and answer for every failure.
type Vault struct {
	boot func(peer string) capnp.Client
}

// NewVault returns a Vault on boot, which returns the vat's bootstrap
// client for a peer (vat.Bootstrap).
func NewVault(boot func(peer string) capnp.Client) *Vault { return &Vault{boot: boot} }

// Kind is the kind of token a door takes.
type Kind int

const (
	// ShareToken is a share's token (Vault.restore): a Pass with Share.
	ShareToken Kind = iota
	// AdminToken is the admin or a creation token (Vault.restoreAdmin): a
	// Pass with Admin.
	AdminToken
)

// Pass is what the gate admitted: the request's peer and, when it carried
// a token, what the token redeemed to. Its capabilities belong to the
// request; the gate releases them when the door's handler returns, so a
// door that keeps one past the request takes its own reference (AddRef).
type Pass struct {
	// Peer names the caller to the vat (audit, per-peer quotas): the
	// door's name and the request's remote address.
	Peer string
	// Access is the redeemed grant's (a ShareToken's); zero otherwise.
	Access sharevat.Access
	// Info is the share as of the redeem (a ShareToken's).
	Info sharevat.Share

	vault schema.Vault
	share schema.Share
	admin schema.Admin
}

// Vault is the vat's Vault of this request's peer, for a door that
// serves a request without a token (an open server's creates).
func (p *Pass) Vault() schema.Vault { return p.vault }

// Share is the capability the share token redeemed to (a null client
// when the request carried none).
func (p *Pass) Share() schema.Share { return p.share }

// Admin is the capability the admin or creation token redeemed to.
func (p *Pass) Admin() schema.Admin { return p.admin }

// Caller names whom the budget charges: the grant, or without one the
// peer.
func (p *Pass) Caller() string {
	if p.Access.GrantID != "" {
		return "grant " + string(p.Access.GrantID)
	}
	return "peer " + p.Peer
}

// release drops the Pass's capabilities.
func (p *Pass) release() {
	p.share.Release()
	p.admin.Release()
	p.vault.Release()
}

// open returns a Pass for peer with no token redeemed yet.
func (v *Vault) open(peer string) *Pass {
	return &Pass{Peer: peer, vault: schema.Vault(v.boot(peer))}
}

// Redeem redeems token of kind for peer. Errors: ErrToken for every
// failure of the token; unavailable when the vat could not decide
// (sharevat.ErrCannotCheckToken); corrupt as the vat says it.
func (v *Vault) Redeem(ctx context.Context, token, peer string, kind Kind) (*Pass, error) {
	p := v.open(peer)
	if err := p.redeem(ctx, token, kind); err != nil {
		p.release()
		return nil, err
	}
	return p, nil
}

// redeem redeems token into p.
func (p *Pass) redeem(ctx context.Context, token string, kind Kind) error {
	if token == "" {
		return ErrToken
	}
	if kind == AdminToken {
		fut, rel := p.vault.RestoreAdmin(ctx, func(a schema.Vault_restoreAdmin_Params) error { return a.SetToken(token) })
		defer rel()
		res, err := fut.Struct()
		if err != nil {
			return redeemError(err)
		}
		p.admin = res.Admin().AddRef()
		return nil
	}
	fut, rel := p.vault.Restore(ctx, func(a schema.Vault_restore_Params) error { return a.SetToken(token) })
	defer rel()
	res, err := fut.Struct()
	if err != nil {
		return redeemError(err)
	}
	if err := p.readAccess(res); err != nil {
		return err
	}
	p.share = res.Share().AddRef()
	return nil
}

// readAccess reads a restore's access and share info into p.
func (p *Pass) readAccess(res schema.Vault_restore_Results) error {
	a, err := res.Access()
	if err == nil {
		p.Access, err = wire.ReadAccess(a)
	}
	if err != nil {
		return sharevat.Errorf(sharevat.EInternal, "redeem: read access: %v", err)
	}
	i, err := res.Info()
	if err == nil {
		p.Info, err = wire.ReadShareInfo(i)
	}
	if err != nil {
		return sharevat.Errorf(sharevat.EInternal, "redeem: read share info: %v", err)
	}
	return nil
}

// redeemError is the domain error of a failed redeem: the vat's
// unavailable and corrupt as they are (the token may be valid), and
// anything else ErrToken, so that no failure tells one cause from another.
func redeemError(err error) error {
	de, _ := wire.ServerError(err)
	switch {
	case de == nil && errors.Is(err, context.Canceled), de == nil && errors.Is(err, context.DeadlineExceeded):
		return sharevat.ErrCannotCheckToken
	case de != nil && (de.Code == sharevat.EUnavailable || de.Code == sharevat.ECorrupt):
		return de
	}
	return ErrToken
}
