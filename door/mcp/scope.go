package mcp

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharevat/sharevat"
)

// toolRights is what each tool needs of the session's scope: any one of
// the rights listed (0: none). A session sees only the tools its token
// may use, and a call of another is an unknown tool, as if it were not
// there. grant needs delegate as the vat does; list_grants and revoke
// act on the grants under the caller's own, which only delegate (or
// admin) can have made. fork is in toolNeedsAll instead: the vat asks
// read and append of it (a fork is new durable state).
var toolRights = map[string]sharevat.Scope{
	"share_info": 0,
	"read_ops":   sharevat.ScopeRead, "follow_ops": sharevat.ScopeRead, "snapshot": sharevat.ScopeRead,
	"append_ops":  sharevat.ScopeAppend,
	"grant":       sharevat.ScopeDelegate,
	"list_grants": sharevat.ScopeDelegate | sharevat.ScopeAdmin, "revoke": sharevat.ScopeDelegate | sharevat.ScopeAdmin,
}

// toolNeedsAll is what a tool needs of the scope all at once, as the vat
// asks it.
var toolNeedsAll = map[string]sharevat.Scope{
	"fork": sharevat.ScopeRead | sharevat.ScopeAppend,
}

// allowed reports whether scope may use the tool named.
func allowed(tool string, scope sharevat.Scope) bool {
	if all, ok := toolNeedsAll[tool]; ok {
		return scope&all == all
	}
	need, ok := toolRights[tool]
	return ok && (need == 0 || scope&need != 0)
}

// scopeWait bounds how long tools/list waits to learn the scope of a
// stdio session whose vat is not answering; past it every tool is
// listed, and the vat still checks each call.
const scopeWait = 5 * time.Second

// scope returns the rights of the session's token, and false when they
// cannot be learned now (a stdio session whose vat is down).
func (d *door) scope(ctx context.Context, extra *mcp.RequestExtra) (sharevat.Scope, bool) {
	if p := passOf(extra); p != nil {
		return p.Access.Scope, true
	}
	ctx, cancel := context.WithTimeout(ctx, scopeWait)
	defer cancel()
	src, err := d.source(ctx, extra)
	if err != nil {
		return 0, false
	}
	sh, err := src.Share(ctx)
	if err != nil {
		return 0, false
	}
	return sh.Access.Scope, true
}

// byScope lists only the tools the session's scope may use and answers
// a call of another as the SDK answers an unknown tool.
func (d *door) byScope(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			name := req.(*mcp.CallToolRequest).Params.Name
			if s, known := d.scope(ctx, req.GetExtra()); known && !allowed(name, s) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", name)}
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.ListToolsResult)
			if s, known := d.scope(ctx, req.GetExtra()); err == nil && ok && known {
				r.Tools = slices.DeleteFunc(slices.Clone(r.Tools), func(t *mcp.Tool) bool { return !allowed(t.Name, s) })
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}
