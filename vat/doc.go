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
// Every handler runs inside guard, which turns a panic into an internal
// error for that one call (logged with its stack) instead of a crash.
package vat
