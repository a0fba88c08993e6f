package mcp

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// maxTTLSeconds bounds a grant's ttl (100 years) so that it converts to
// a time.Duration; the vat caps it at the caller's own expiry anyway.
const maxTTLSeconds = 100 * 365 * 24 * 3600

// grantTools adds the tools of delegation and of forks.
func (d *door) grantTools(s *mcp.Server) {
	addTool(d, s, "grant", "Grant a narrower token",
		"Mint a new token for another agent with a subset of this session's rights (scope, e.g. \"read\" or \"read,append\"), an optional lifetime (ttlSeconds; never beyond your own) and a label saying who it is for. Answers the token (a secret: hand it only to that agent) and its grantId (to revoke it). Add delegate to the scope to let its holder grant in turn. Needs delegate.",
		adding, d.grant)
	addTool(d, s, "list_grants", "List grants",
		"The delegation tree under this session's grant: each grant's id, parent, rights, label, expiry, whether it was revoked and when it was last used. Never tokens. Needs delegate.",
		reading, d.grants)
	addTool(d, s, "revoke", "Revoke a grant",
		"Revoke one grant (by grantId, from grant or list_grants) and every grant minted under it: their tokens stop working at once, in every live session. Needs delegate.",
		removing, d.revoke)
	addTool(d, s, "fork", "Fork the session",
		"Copy the session log up to atCursor (default: the head) into a new share and answer its id and owner token (a secret). The original is unchanged. Needs read.",
		adding, d.fork)
}

func (d *door) grant(ctx context.Context, req *mcp.CallToolRequest, in grantIn) (*mcp.CallToolResult, mintedOut, error) {
	var out mintedOut
	scope, err := sharevat.ParseScope(in.Scope)
	if err != nil {
		return nil, out, invalid("scope: %s", sharevat.ErrorMessage(err))
	}
	if in.TTLSeconds < 0 || in.TTLSeconds > maxTTLSeconds {
		return nil, out, invalid("ttlSeconds must be 0 (your own expiry) to %d", maxTTLSeconds)
	}
	err = d.withShare(ctx, req, 0, func(ctx context.Context, sh *client.Share) error {
		m, err := sh.Grant(ctx, scope, time.Duration(in.TTLSeconds)*time.Second, in.Label)
		out = mintedOf(m)
		return err
	})
	return nil, out, err
}

func (d *door) grants(ctx context.Context, req *mcp.CallToolRequest, _ noInput) (*mcp.CallToolResult, grantsOut, error) {
	var out grantsOut
	err := d.withShare(ctx, req, 0, func(ctx context.Context, sh *client.Share) error {
		gs, err := sh.Grants(ctx)
		out = grantsOf(gs)
		return err
	})
	return nil, out, err
}

func (d *door) revoke(ctx context.Context, req *mcp.CallToolRequest, in revokeIn) (*mcp.CallToolResult, revokeOut, error) {
	if in.GrantID == "" {
		return nil, revokeOut{}, invalid("grantId is empty: give the id grant or list_grants answered")
	}
	err := d.withShare(ctx, req, 0, func(ctx context.Context, sh *client.Share) error {
		return sh.Revoke(ctx, sharevat.GrantID(in.GrantID))
	})
	return nil, revokeOut{Revoked: in.GrantID}, err
}

func (d *door) fork(ctx context.Context, req *mcp.CallToolRequest, in forkIn) (*mcp.CallToolResult, forkOut, error) {
	var out forkOut
	err := d.withShare(ctx, req, 0, func(ctx context.Context, sh *client.Share) error {
		at, err := forkCursor(ctx, sh, in.AtCursor)
		if err != nil {
			return err
		}
		var patch sharevat.MetaPatch
		if in.Title != "" {
			patch.Title = &in.Title
		}
		child, m, err := sh.Fork(ctx, at, patch)
		if err != nil {
			return err
		}
		defer child.Release()
		out = forkOut{ShareID: string(child.Info.ID), At: uint64(at), Owner: mintedOf(m)}
		return nil
	})
	return nil, out, err
}

// forkCursor is the cursor asked for, or the share's head.
func forkCursor(ctx context.Context, sh *client.Share, at *uint64) (sharevat.Cursor, error) {
	if at != nil {
		return sharevat.Cursor(*at), nil
	}
	info, _, err := sh.Fetch(ctx)
	return info.Head, err
}
