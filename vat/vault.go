package vat

import (
	"context"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/wire"
)

// errRedeem is the one answer to every failed redeem of a token (unknown,
// wrong secret, revoked, expired, fenced, on a deleted share), whatever
// the cause.
var errRedeem = sharevat.Errorf(sharevat.EUnauthorized, "invalid or expired token")

// errCannotCheck is the answer to a redeem the vat could not decide
// because its store failed (the database is down, the disk full): the
// token may well be valid, so it must not be called invalid. It is the
// same for every token, valid or not, and retrying later helps.
var errCannotCheck = sharevat.ErrCannotCheckToken

// vault is the bootstrap capability of one connection. It has no
// authority of its own: it only redeems tokens.
type vault struct {
	vat  *Vat
	peer string
	conn *peerConn // this connection, for its limits
}

var _ schema.Vault_Server = (*vault)(nil)

// Restore redeems a share token into a Share facet of the grant's scope.
func (s *vault) Restore(ctx context.Context, call schema.Vault_restore) error {
	call.Go()
	return s.vat.guard(ctx, "Vault.restore", func() error {
		lg, err := s.redeem(ctx, call.Args().Token, false)
		if err != nil {
			return err
		}
		sh, err := s.vat.store.Share(ctx, lg.g.ShareID)
		if err != nil {
			return s.redeemFailed(ctx, err)
		}
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		f := &facet{vat: s.vat, lg: lg, rights: lg.g.Scope, peer: s.peer, conn: s.conn}
		share, err := f.shareClient()
		if err != nil {
			return err
		}
		if err := res.SetShare(share); err != nil {
			return err
		}
		return setAccessInfo(res.NewAccess, res.NewInfo, f.access(), sh)
	})
}

// redeem parses a token, finds its live grant and checks the secret
// against the stored verifier. Every failure of the token is errRedeem,
// a store failure errCannotCheck (redeemFailed); an unknown or
// dead grant still pays for one keyed hash, so that timing does not tell
// it from a wrong secret. The server's admin token redeemed as a share
// token answers sharevat.ErrAdminAsShare: its secret is verified, so only
// its holder learns that.
func (s *vault) redeem(ctx context.Context, text func() (string, error), admin bool) (*liveGrant, error) {
	raw, err := text()
	if err != nil {
		s.vat.obs.Redeemed(false)
		return nil, errRedeem
	}
	tok, err := sturdyref.Parse(raw)
	if err != nil {
		s.vat.obs.Redeemed(false)
		return nil, errRedeem
	}
	lg, err := s.vat.reg.get(ctx, tok.GrantID)
	if err != nil {
		s.vat.cfg.Verifier.Verify(tok, nil)
		err = s.redeemFailed(ctx, err)
		s.auditRedeem(ctx, sharevat.Grant{ID: tok.GrantID}, err)
		return nil, err
	}
	verified := s.vat.cfg.Verifier.Verify(tok, lg.g.Verifier)
	if verified && lg.g.IsAdmin() && !admin {
		s.auditRedeem(ctx, lg.g, sharevat.ErrAdminAsShare)
		return nil, sharevat.ErrAdminAsShare
	}
	if !verified || lg.g.IsAdmin() != admin {
		s.auditRedeem(ctx, lg.g, errRedeem)
		return nil, errRedeem
	}
	lg.touch(s.vat.now())
	s.auditRedeem(ctx, lg.g, nil)
	return lg, nil
}

// redeemFailed hides the cause of a failed redeem among the token's own
// failures (not found, revoked, unauthorized, invalid): they all answer
// errRedeem. A store that could not answer is not the token's failure:
// it is logged and answers errCannotCheck (unavailable), so that no
// client is told to give up a valid token; stored data that failed its
// check answers corrupt. A redeem its caller cancelled is the caller's
// doing, not the store's: it is logged at debug only and answers
// errCancelled, as every cancelled call does (the same for every token,
// so it tells nothing of the token; and unavailable, so no client that
// still hears it gives up a valid token).
func (s *vault) redeemFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		s.vat.log.Debug("redeem: cancelled by the caller")
		return errCancelled
	}
	switch sharevat.ErrorCode(err) {
	case sharevat.ENotFound, sharevat.ERevoked, sharevat.EUnauthorized, sharevat.EInvalid, sharevat.EPermissionDenied:
		return errRedeem
	case sharevat.ECorrupt:
		s.vat.log.Error("redeem: stored data failed its check", "err", err)
		return sharevat.ErrCorrupt
	}
	s.vat.log.Error("redeem: store failure; answered unavailable", "err", err)
	return errCannotCheck
}

// auditRedeem records a redeem's outcome in the metrics and, thinned
// per interval (auditredeem.go), the audit log: ok, unauthorized for a
// token's failure, or the code of a store failure.
func (s *vault) auditRedeem(ctx context.Context, g sharevat.Grant, err error) {
	s.vat.obs.Redeemed(err == nil)
	result := "ok"
	if err != nil {
		result = string(sharevat.ErrorCode(err))
	}
	rec := sharevat.AuditRecord{
		Action: sharevat.AuditRedeem, ShareID: g.ShareID, GrantID: g.ID, Parent: g.Parent,
		Scope: g.Scope, Epoch: g.Epoch, Peer: s.peer, Result: result, At: s.vat.now(),
	}
	if s.vat.redeems.admit(rec, rec.At) { // thinned per interval (auditredeem.go)
		s.vat.auditRecord(rec, false)
	}
}

// RestoreAdmin redeems the server's admin token.
func (s *vault) RestoreAdmin(ctx context.Context, call schema.Vault_restoreAdmin) error {
	return s.vat.guard(ctx, "Vault.restoreAdmin", func() error {
		lg, err := s.redeem(ctx, call.Args().Token, true)
		if err != nil {
			return err
		}
		return setAdmin(call.AllocResults, &adminServer{vat: s.vat, lg: lg, peer: s.peer, conn: s.conn})
	})
}

// OpenAdmin hands out a create-only Admin on a server started with --open.
func (s *vault) OpenAdmin(ctx context.Context, call schema.Vault_openAdmin) error {
	return s.vat.guard(ctx, "Vault.openAdmin", func() error {
		if !s.vat.cfg.Open {
			return sharevat.Errorf(sharevat.EPermissionDenied, "this server is not open; redeem the admin token instead")
		}
		return setAdmin(call.AllocResults, &adminServer{vat: s.vat, peer: s.peer, conn: s.conn})
	})
}

type adminResults interface{ SetAdmin(schema.Admin) error }

func setAdmin[R adminResults](alloc func() (R, error), a *adminServer) error {
	res, err := alloc()
	if err != nil {
		return err
	}
	admin, err := a.client()
	if err != nil {
		return err
	}
	return res.SetAdmin(admin)
}

// setAccessInfo fills the (access, info) result pair many calls return.
func setAccessInfo(newAccess func() (schema.Access, error), newInfo func() (schema.ShareInfo, error),
	a sharevat.Access, sh sharevat.Share) error {
	acc, err := newAccess()
	if err != nil {
		return err
	}
	if err := wire.SetAccess(acc, a); err != nil {
		return err
	}
	info, err := newInfo()
	if err != nil {
		return err
	}
	return wire.SetShareInfo(info, sh)
}

// Ping answers at once; it needs no authority. It returns without
// call.Go(): nothing in it blocks, and releasing the Vault's call order
// would start a goroutine per ping (go-capnp's server hands its queue to
// a new one), which the bench's RPC ceiling would then measure.
func (s *vault) Ping(ctx context.Context, call schema.Vault_ping) error {
	return nil
}

// Limits answers the append limits this vat enforces; it needs no
// authority.
func (s *vault) Limits(ctx context.Context, call schema.Vault_limits) error {
	res, err := call.AllocResults()
	if err != nil {
		return err
	}
	lim, err := res.NewLimits()
	if err != nil {
		return err
	}
	wire.SetLimits(lim, s.vat.cfg.Limits)
	return nil
}
