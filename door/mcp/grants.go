package mcp

import (
	"time"

	"github.com/sharevat/sharevat"
)

// grantIn is the arguments of grant.
type grantIn struct {
	Scope      string `json:"scope" jsonschema:"rights of the new token, comma-separated, a subset of yours: read, append, delegate, admin (e.g. \"read\")"`
	TTLSeconds int64  `json:"ttlSeconds,omitempty" jsonschema:"lifetime in seconds (default 0: the same expiry as your own token; never later)"`
	Label      string `json:"label,omitempty" jsonschema:"who or what the token is for; list_grants shows it"`
}

// mintedOut is a new token: the answer of grant and the owner of a fork.
type mintedOut struct {
	Token     string    `json:"token" jsonschema:"the new token: hand it to the agent it is for; it is shown once and is a secret"`
	GrantID   string    `json:"grantId" jsonschema:"its grant's id: pass to revoke to end it"`
	Scope     string    `json:"scope" jsonschema:"its rights"`
	ExpiresAt time.Time `json:"expiresAt,omitzero" jsonschema:"when it expires (absent: never)"`
}

func mintedOf(m sharevat.Minted) mintedOut {
	return mintedOut{Token: m.Token, GrantID: string(m.GrantID), Scope: m.Scope.String(), ExpiresAt: m.ExpiresAt}
}

// grantOut is one grant of the delegation tree, never its token.
type grantOut struct {
	ID        string    `json:"id" jsonschema:"the grant's id"`
	Parent    string    `json:"parent,omitempty" jsonschema:"the grant it was minted from (absent: a root)"`
	Scope     string    `json:"scope" jsonschema:"its rights"`
	Label     string    `json:"label,omitempty" jsonschema:"its label"`
	CreatedAt time.Time `json:"createdAt" jsonschema:"when it was minted"`
	ExpiresAt time.Time `json:"expiresAt,omitzero" jsonschema:"when it expires (absent: never)"`
	Revoked   bool      `json:"revoked,omitempty" jsonschema:"true once revoked"`
	LastUsed  time.Time `json:"lastUsed,omitzero" jsonschema:"when its token was last redeemed"`
}

// grantsOut is the answer of list_grants.
type grantsOut struct {
	Grants []grantOut `json:"grants" jsonschema:"your grant and every grant minted under it"`
}

func grantsOf(gs []sharevat.Grant) grantsOut {
	out := grantsOut{Grants: make([]grantOut, 0, len(gs))}
	for _, g := range gs {
		out.Grants = append(out.Grants, grantOut{ID: string(g.ID), Parent: string(g.Parent), Scope: g.Scope.String(),
			Label: g.Label, CreatedAt: g.CreatedAt, ExpiresAt: g.ExpiresAt, Revoked: g.Revoked, LastUsed: g.LastUsed})
	}
	return out
}

// revokeIn is the arguments of revoke.
type revokeIn struct {
	GrantID string `json:"grantId" jsonschema:"the grant to revoke, with every grant minted under it"`
}

// revokeOut is the answer of revoke.
type revokeOut struct {
	Revoked string `json:"revoked" jsonschema:"the grant revoked"`
}

// forkIn is the arguments of fork.
type forkIn struct {
	AtCursor *uint64 `json:"atCursor,omitempty" jsonschema:"fork the log as of this cursor (default: the head)"`
	Title    string  `json:"title,omitempty" jsonschema:"the new share's title"`
}

// forkOut is the answer of fork.
type forkOut struct {
	ShareID string    `json:"shareId" jsonschema:"the new share's id"`
	At      uint64    `json:"at" jsonschema:"the cursor it was forked at"`
	Owner   mintedOut `json:"owner" jsonschema:"the new share's owner token (a secret): start a sharevat MCP session with it to use the fork"`
}
