package sharevat

import "time"

// Grant is the vault record behind a token (docs/design.md §2, §4). The secret
// itself is never stored: only Verifier, a keyed hash of it.
type Grant struct {
	ID        GrantID
	ShareID   ShareID // empty for a server admin grant
	Parent    GrantID // empty for a root grant (share owner, admin)
	Scope     Scope
	Epoch     Epoch
	Verifier  []byte
	Label     string
	CreatedBy string // the minting peer's address
	CreatedAt time.Time
	ExpiresAt time.Time // zero: never
	Revoked   bool
	RevokedAt time.Time
	LastUsed  time.Time
}

// IsAdmin reports whether g is a server admin grant (not tied to a share).
func (g *Grant) IsAdmin() bool { return g.ShareID == "" }

// Expired reports whether g has an expiry at or before now.
func (g *Grant) Expired(now time.Time) bool {
	return !g.ExpiresAt.IsZero() && !now.Before(g.ExpiresAt)
}

// AuditAction is what an audit record reports.
type AuditAction string

// The audited actions.
const (
	AuditCreate AuditAction = "create" // a share was created (with its owner grant)
	AuditMint   AuditAction = "mint"   // a grant was minted
	AuditRedeem AuditAction = "redeem" // a token was redeemed (successfully or not)
	AuditRevoke AuditAction = "revoke" // a grant (and its subtree) was revoked
	AuditBump   AuditAction = "bump"   // a share's epoch was bumped

	// The session lifecycle (docs/design.md §3).
	AuditFork      AuditAction = "fork"      // a share was forked (the record names the new share and the forking grant)
	AuditDelete    AuditAction = "delete"    // a share was deleted
	AuditCompact   AuditAction = "compact"   // a share was compacted on request (not by the retention job)
	AuditConfigure AuditAction = "configure" // a share's settings were replaced
)

// AuditRecord is one line of the audit log. It names grants by id only and
// never holds a secret.
type AuditRecord struct {
	Seq     uint64 // assigned by the store
	At      time.Time
	Action  AuditAction
	ShareID ShareID
	GrantID GrantID
	Parent  GrantID
	Scope   Scope
	Epoch   Epoch
	Peer    string
	Result  string // "ok", or the error code of a failure
}

// Access describes what a live capability may do: its grant, scope, epoch
// and expiry.
type Access struct {
	GrantID   GrantID
	Scope     Scope
	Epoch     Epoch
	ExpiresAt time.Time // zero: never
}

// Minted is a freshly minted sturdy ref. Token is the only copy of the
// secret: it is shown once and never stored.
type Minted struct {
	Token     string
	GrantID   GrantID
	Scope     Scope
	ExpiresAt time.Time
}
