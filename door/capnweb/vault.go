package capnweb

import (
	"context"

	"capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// vaultTarget is the main interface of one Cap'n Web session: the vat's
// Vault of the peer's connection.
type vaultTarget struct{ capTarget[schema.Vault] }

var (
	_ capnweb.Target   = (*vaultTarget)(nil)
	_ capnweb.Releaser = (*vaultTarget)(nil)
)

// NewVault returns the main interface of one Cap'n Web session. boot is
// the vat's bootstrap client for this peer (vat.BootstrapMetered with
// the session's address and meter); the Target owns it and releases it
// when the session releases the Target (capnweb.Releaser).
//
// Methods (docs/capnweb.md): restore(token) → {share, access, info},
// restoreAdmin(token) → Admin, openAdmin() → Admin, ping() → undefined,
// limits() → Limits. Errors as the vat's: every failure of the token
// answers "unauthorized: invalid or expired token"; a redeem the store
// could not decide answers "unavailable: …; retry later".
func NewVault(boot capnp.Client) capnweb.Target {
	return &vaultTarget{capTarget[schema.Vault]{c: schema.Vault(boot)}}
}

// Call implements capnweb.Target.
func (t *vaultTarget) Call(ctx context.Context, method string, args []capnweb.Value) capnweb.Answer {
	c := newCall(ctx, "Vault", method, args)
	switch method {
	case "restore":
		return t.restore(c)
	case "restoreAdmin":
		return t.restoreAdmin(c)
	case "openAdmin":
		return t.openAdmin(c)
	case "ping":
		fut, rel := t.c.Ping(c.ctx, nil)
		return await(fut.Struct, rel, none)
	case "limits":
		fut, rel := t.c.Limits(c.ctx, nil)
		return await(fut.Struct, rel, func(r schema.Vault_limits_Results) (capnweb.Value, error) {
			l, err := r.Limits()
			if err != nil {
				return nil, err
			}
			return limitsValue(wire.ReadLimits(l)), nil
		})
	}
	return notFunction(method)
}

func (t *vaultTarget) restore(c *call) capnweb.Answer {
	token := c.text(c.arg(0), "token")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.Restore(c.ctx, func(p schema.Vault_restore_Params) error { return p.SetToken(token) })
	return await(fut.Struct, rel, func(r schema.Vault_restore_Results) (capnweb.Value, error) {
		acc, err := read(r.Access, wire.ReadAccess)
		if err != nil {
			return nil, err
		}
		info, err := read(r.Info, wire.ReadShareInfo)
		if err != nil {
			return nil, err
		}
		return capnweb.NewObject().
			Set("share", newShare(r.Share().AddRef())).
			Set("access", accessValue(acc)).
			Set("info", shareInfoValue(info)), nil
	})
}

func (t *vaultTarget) restoreAdmin(c *call) capnweb.Answer {
	token := c.text(c.arg(0), "token")
	if c.err != nil {
		return failed(c.err)
	}
	fut, rel := t.c.RestoreAdmin(c.ctx, func(p schema.Vault_restoreAdmin_Params) error { return p.SetToken(token) })
	return await(fut.Struct, rel, func(r schema.Vault_restoreAdmin_Results) (capnweb.Value, error) {
		return newAdmin(r.Admin().AddRef()), nil
	})
}

func (t *vaultTarget) openAdmin(c *call) capnweb.Answer {
	fut, rel := t.c.OpenAdmin(c.ctx, nil)
	return await(fut.Struct, rel, func(r schema.Vault_openAdmin_Results) (capnweb.Value, error) {
		return newAdmin(r.Admin().AddRef()), nil
	})
}
