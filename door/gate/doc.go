// Package gate is the one way into the vat for HTTP doors (/mcp, the
// opencode door, …): every request a door serves passes the same checks,
// in the same order, decided here and nowhere else.
//
//  1. The size limit (gate.go, admit): a body declared longer than
//     Options.MaxBody is refused 413 before anything else is done.
//  2. The token (vault.go, Vault.Redeem): taken from where the door
//     carries it (Options.Token: Bearer, a path segment) and redeemed on
//     the vat's Vault before any byte of the body is read or any session
//     kept. Every failure of the token — malformed, unknown, wrong secret,
//     revoked, expired — is the same 401 "unauthorized: invalid or expired
//     token" (with Options.Challenge as WWW-Authenticate); a store that
//     could not decide is 503.
//  3. The caller's share of the one memory budget (budget.go): the body's
//     declared size (MaxBody when it declares none) times
//     Options.Expansion is charged to Options.Budget — the server's one
//     pool, rpc.MemoryPool — before the body is read, and no caller (one
//     grant; one remote address without a token) may hold more than
//     Options.CallerShare of it, save one request at a time of any size.
//     Full: 503. Given back when the request ends.
//  4. The grant's quotas: decided by the vat on the capability call
//     (vat/quotas.go), which is the only way a door reaches the store:
//     the door makes its calls on the Pass's capabilities.
//  5. The body is read (body.go) within Options.BodyTimeout (408 past it,
//     400 when it fails, 413 past MaxBody) and handed to the door in
//     memory; the door then makes its capability call.
//
// The door's handler finds what the gate admitted with PassFrom. The
// Pass's capabilities belong to the request: the gate releases them when
// the door's handler returns.
//
// Error answers are plain text "<code>: <message>" (the wire code of
// sharevat.Code and a human sentence), never a token nor a store's text:
//
//	413 tooLarge     the body is over MaxBody
//	401 unauthorized no token, or any failure of the token
//	503 unavailable  the token cannot be checked now, or the budget is full
//	408 invalid      the body did not arrive in time
//	400 invalid      the body could not be read
package gate
