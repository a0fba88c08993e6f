package vat

import (
	"context"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"
)

// DefaultMaxChildGrants is the default of Config.MaxChildGrants: how many
// live grants one grant may have minted directly.
const DefaultMaxChildGrants = 1000

// newGrant mints a token and the grant record that verifies it. The token
// text leaves only through the returned Minted.
func (v *Vat) newGrant(share sharevat.ShareID, parent sharevat.GrantID, scope sharevat.Scope,
	epoch sharevat.Epoch, expires time.Time, label, peer string) (sharevat.Grant, sharevat.Minted, error) {
	tok, err := sturdyref.New(v.cfg.Rand)
	if err != nil {
		return sharevat.Grant{}, sharevat.Minted{}, fmt.Errorf("mint: %w", err)
	}
	g := sharevat.Grant{
		ID: tok.GrantID, ShareID: share, Parent: parent, Scope: scope, Epoch: epoch,
		Verifier: v.cfg.Verifier.Sum(tok), Label: label, CreatedBy: peer,
		CreatedAt: v.now(), ExpiresAt: expires,
	}
	m := sharevat.Minted{Token: tok.Reveal(), GrantID: g.ID, Scope: scope, ExpiresAt: expires}
	return g, m, nil
}

// audit appends one record and waits until it is written; a failure is
// logged, never shown to the peer and never fails the call that caused it
// (the record is written even if the call's context was just cancelled:
// a bump kills its caller's own grant, and so its call context).
func (v *Vat) audit(ctx context.Context, rec sharevat.AuditRecord) {
	v.auditRecord(rec, true)
}

// auditRecord stamps rec and hands it to the audit writer.
func (v *Vat) auditRecord(rec sharevat.AuditRecord, wait bool) {
	if rec.At.IsZero() {
		rec.At = v.now()
	}
	v.auditor.add(rec, wait)
}
