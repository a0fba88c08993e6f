// Package sharevat holds the domain of sharevat, a server that keeps
// durable, shareable session logs: the types its clients and servers all
// speak, and its one error type. The Go client is package
// sharevat/client; the protocol is docs/design.md.
//
// # Shares and rights
//
// A share (Share, named by a ShareID) is one session log with its
// metadata (Meta; MetaPatch updates it). A token redeems to a capability
// whose Access says what it may do: a Scope (ScopeRead, ScopeAppend,
// ScopeDelegate, ScopeAdmin), an Epoch (a token lives only while its
// epoch is the share's, so bumping the epoch kills every earlier token)
// and an expiry. Minting a token returns a Minted: the token, shown once,
// and its public GrantID, the name to revoke it by.
//
// # Appending
//
// An Op is one entry to append: its Kind is one of KindSession,
// KindMessage, KindPart, KindSessionDiff and KindModel, which carry a Key
// and are upserted into the share's state by (kind, key), or KindEvent,
// append-only. Its OpID, chosen by the client, makes it idempotent: an op
// sent twice is applied once. Ops travel in a Batch, which carries the
// Epoch the client believes current; Op.Size and Batch.Size count what
// Limits bound. The answer is an Ack, with one OpResult per op: OpStatus
// applied (at a Cursor), duplicate (at the cursor of the original) or
// rejected, with a Reason (ReasonConflict, ReasonStaleEpoch, …).
//
// # Reading
//
// A share's log is a sequence of Entry, numbered by Cursor from 1
// (cursor 0 is "before the first op"); its materialized state is the
// latest Entity of each (kind, key).
//
// # Errors
//
// Every failure that crosses the wire is an *Error with a wire-stable
// Code (EUnauthorized, EPermissionDenied, ERevoked, EInvalid, EConflict,
// ENotFound, ETooLarge, EUnavailable, EInternal, ECorrupt): test it with
// errors.Is(err, ErrRevoked) or ErrorCode(err).
//
// # Server side
//
// The storage interfaces (Store, and ShareStore, GrantStore, LogStore,
// AuditStore with AppendRequest) live here too, with the records they
// keep (Grant, AuditRecord), as in the standard package layout: the
// backends under store/ implement them (store/bolt), pass the contract
// suite (store/storetest) and run appends through the append engine
// (store/apply); package vat serves them as capabilities.
//
// This package imports only the standard library. Adapters (store, vat,
// rpc, client, cmd) depend on it and never on each other, except as
// listed in docs/design.md §12.
package sharevat
