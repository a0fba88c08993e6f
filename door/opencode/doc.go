// Package opencode is the opencode door of the vat: it serves the
// small REST share API stock opencode speaks (docs/opencode.md), so that
// opencode shares into sharevat with one line of configuration. Every
// call with a body passes the one gate of the HTTP doors (door/gate,
// gates.go): the size limit, the token redeemed before the body is read
// (a creation token in the path; a sync's or delete's secret, the first
// field of its body, read first), the caller's share of the one memory
// budget, then the body. The door then works on the capabilities the
// gate redeemed, with the same rights checks, registry, limits, quotas,
// privacy guard and live revocation as /rpc and /capnweb; its only
// reach into the store is the session index (sharevat.SessionIndex,
// index.go), shared by every vat on the store.
//
// Routes (the optional prefix /opencode/<creation token> is where
// opencode's enterprise.url puts the creation right):
//
//	POST   [/opencode/<t>]/api/share            {"sessionID"} → {"id","url","secret"}
//	POST   [/opencode/<t>]/api/share/<id>/sync  {"secret","data":[{"type","data"}…]} → {"ok":true,…}
//	DELETE [/opencode/<t>]/api/share/<id>       {"secret"} → {"ok":true}
//	GET    [/opencode/<t>]/api/share/<slug>/data → [{"type","data"}…]
//	GET    /share/<slug>                         the share page (server mounts it)
//
// and the creation-token API (tokens.go, TokensPath) the CLI's
// `sharevat opencode-token` calls with the admin token.
//
// Mapping: id is the share id; secret is the share's owner token; url is
// <public url>/share/<slug>, slug a read-only grant of its own ("opencode
// link"). Each item becomes one op (items.go); an item older than the
// stored one of its key is skipped (order.go; the versions the door keeps
// are bounded, states.go); the share's title follows the session's
// (title.go). GET …/data streams the state page by page (data.go,
// statepages.go). A create for a session the
// same creation right already shared answers the same share (index.go:
// tokens sealed with a key derived from the vat's pepper); on the open
// door only while that share is empty and new (create.go, joinable).
//
// Errors: every failure answers a JSON object {"error": "<code>: <message>"}
// with a 4xx (or 503 when the vat cannot answer now): 400 invalid input,
// 401 a missing or wrong creation token or secret (one answer for an
// unknown id, a wrong secret, a revoked one, and a token of the share
// without the call's right, such as its read-only link), 403 a cross-origin
// request, 404 a slug that is not a live link, 405 a method the route
// lacks, 409 an open create of a session whose share is no longer
// joinable (create.go), 408 a body that did not arrive in time (Options.BodyTimeout),
// 413 a body or share over a limit (the limit is in the message),
// 429 a creation token's hourly quota, 503 the server's connection
// limits or memory budget. Every answer carries
// Cache-Control: no-store and Referrer-Policy: no-referrer; no token ever
// reaches a log line, a metric or an error message.
package opencode
