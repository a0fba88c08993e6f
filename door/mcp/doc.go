// Package mcp offers a share's capabilities to AI agents as Model
// Context Protocol tools (docs/mcp.md), with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk). It is a door like webvat:
// every tool is one call on the session's Share capability, a
// client.Share — over /rpc to a remote vat for `sharevat mcp` (stdio),
// or on the Share the gate redeemed in-process for /mcp on `sharevat serve`
// (Streamable HTTP) — so every call goes through the vat's rights
// checks, registry, quotas, limits and live revocation, and never
// reaches the store another way.
//
// Authority is the session's share token and nothing else: stdio takes
// it from the environment; HTTP takes each request's bearer token, which
// the gate (door/gate) redeems before any byte of the body is read or
// any session kept (401 with WWW-Authenticate for any failure of it), and
// the SDK refuses a request whose token is not the one its session began
// with. A session lists only the tools its token's scope may use
// (scope.go). The token is never logged and never appears in a tool
// result or error.
//
// Tools (docs/mcp.md): share_info, read_ops, snapshot, append_ops,
// follow_ops (a bounded long poll), grant, list_grants, revoke, fork.
//
// Errors: a failure of the vat is a tool error (isError) whose text is
// "<code>: <message>", the wire code (sharevat.Code) and the vat's human
// sentence, as the other doors say it; arguments that fail the tool's
// input schema (which carries the vat's bounds: tools.go) are tool
// errors from the SDK; an unknown tool, or one the scope does not list,
// and an append_ops over the vat's ops per batch (opcount.go) are
// JSON-RPC errors (-32602, the MCP convention); a protocol error has a
// JSON-RPC code, never 0. Over stdio a line that is not JSON answers
// -32700 and one over the length limit -32600 (stdio.go).
//
// Trust boundary: op bodies are data written by whoever holds an append
// right. They are returned as JSON values inside structured content,
// never as free text addressed to the model.
package mcp
