// Package vat hosts sharevat's live capability objects: the bootstrap
// Vault, Admin, and the Share, Appender and Reader facets handed out for
// grants. It checks scope and validity on every call, translates domain
// errors into Cap'n Proto exceptions ("code: message"), and reaches
// storage only through the interfaces of package sharevat.
//
// # Concurrency
//
// go-capnp runs each capability object's calls one at a time on a
// goroutine of its own, in the order they arrived (E-order). Handlers that
// only read (info, read, snapshot, list) release that order with
// call.Go() so they can run concurrently; handlers that change state
// (append, update, createShare) keep it, so that two batches a client
// sends on one Appender commit in the order sent. The Vat itself holds no
// lock while calling the store or any capability; all shared state lives
// in the store, which is safe for concurrent use.
//
// Per connection, Bootstrap creates a peerConn that the connection's
// Vault passes on to every Admin and facet obtained through it; its
// capability count is an atomic, so counting takes no lock.
//
// Every handler runs inside guard, which turns a panic into an internal
// error for that one call (logged with its stack) instead of a crash.
//
// # Limits
//
// A connection holds at most Config.MaxConnCapabilities (default 10,000)
// live Admin, Share, Appender and Reader objects: the call that would
// hand out one more (restore, restoreAdmin, openAdmin, createShare,
// appender, reader) answers tooLarge ("this connection holds N
// capabilities; release some"), and a release frees the slot once
// go-capnp shuts the object down. go-capnp has no such quota, and each
// live object costs a goroutine. Subscriptions are limited per server,
// connection, share and grant (Config.Quotas): a subscribe over any answers
// tooLarge. A connection's subscriptions share Quotas.ConnPushWindow bytes
// for pushes read and not yet answered, taken before a push is read, so a
// subscriber that never answers makes the vat hold at most that; at most
// Quotas.MaxConnReads read or snapshot answers are built at once per
// connection. A grant may have at most Config.MaxChildGrants live grants
// minted from it. Calls in flight and the memory a connection holds are
// capped by package rpc.
//
// # Guarded capabilities
//
// Every capability is served through guard.go's hook, because go-capnp
// v3.1.0-alpha.2 dereferences a nil PipelineCaller, on a goroutine of its
// own, when a call queued on a pending answer cannot be delivered. Unknown
// methods are answered unimplemented; no PipelineCaller below our objects
// is ever nil; no successful answer carries a null capability in a
// capability field. With the transport's check of pipeline targets
// (package rpc), no sequence of messages can end the process that way.
package vat
