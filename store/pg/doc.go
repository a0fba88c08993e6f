// Package pg is the PostgreSQL storage backend of sharevat: an
// implementation of sharevat.Store over one database, through pgx v5,
// which several vats may share (docs/design.md §8). It passes the same
// contract suite (store/storetest) as store/bolt and runs appends
// through the same append engine (store/apply).
//
// # Concurrency across stores
//
// Every guarantee holds with any number of Stores, in any number of
// processes, on one database. An append transaction locks the row of
// each share it appends to (SELECT … FOR UPDATE, in share id order, so
// that two groups never deadlock), so appends to one share are applied
// one transaction after another: cursors are gap-free and in commit
// order. The op-id index is the primary key (share, op_id) of table ops,
// read under that lock in the same transaction, so a retry through
// another store after a lost reply is a duplicate at its original
// cursor. Compact, Fork (on the parent), Delete, UpdateMeta, BumpEpoch
// take the same row lock. CreateChild locks the parent grant's row, so
// mint quotas count one mint after the other. Audit takes a
// transaction-scoped advisory lock, so records commit in seq order.
// Reads run in a read-only repeatable-read transaction: one snapshot.
// A transaction that fails on a serialization failure or a deadlock is
// run again, up to five times.
//
// # Group commit
//
// The appends of one Store are group-committed as in store/bolt: an
// Append that arrives while a group is committing waits, and the next
// group (up to 128 calls, of any shares) runs in one transaction. A group
// costs four round trips whatever its size: BEGIN; one pipelined batch
// that locks the share rows and reads the op-id index entries of every
// op id and dependency the group names (joined with the log rows they
// point at, to check them) and the state rows its upserts write; one
// pipelined batch that writes the new log rows, index rows and state
// (each as one INSERT … SELECT FROM unnest,
// the state only the newest version of each key, apply.Supersedes over
// the state's bodies read in the first batch) and the heads; COMMIT. The
// append engine runs in memory between the two, over a view of each
// locked share (shareView, the apply.Tx). Acks are set only after COMMIT
// returned. If the group's transaction fails, each call is retried alone.
//
// # Errors
//
// Methods return the domain errors sharevat.Store documents, plus those
// store/bolt adds (EInvalid for empty ids, a nil batch, invalid limits,
// a read or audit limit below 1). A database that cannot be reached, is
// shutting down or refuses connections is EUnavailable; after Close
// every method is EUnavailable. Stored data that fails a check is
// ECorrupt, naming the share and cursor, with the detail logged (never
// op contents in the answer): Read checks each entry's digest, its
// cursor's place and that the op-id index agrees; Snapshot checks each
// entity's digest; a duplicate or met dependency is checked against the
// log row the index points at; Fork and Compact check every entry they
// copy or drop (digest computed by PostgreSQL, and no cursor missing).
// Anything else is returned wrapped as "pg: <operation>: …", not a
// domain error (EInternal at the RPC boundary).
//
// # Schema
//
// Migrations are embedded (migrations/NNN_name.sql), recorded in
// schema_migrations (version, name, applied_at) and applied by Open on
// one connection holding pg_advisory_lock(0x73687674), each in its own
// transaction, so vats starting at once apply each one once. A database
// whose version is newer than the build's is refused. Schema 1:
//
//	shares  one row per share ever created, deleted ones too (deleted,
//	        deleted_at): meta, epoch, head, earliest, owner_root,
//	        parent_id and fork_cursor, settings (privacy, retain_ops,
//	        retain_for in ns). Indexed by (updated_at DESC, id) for
//	        ListShares (a page token is base64url(0x01 ‖ 8-byte
//	        updated_at ‖ id)) and by (parent_id, created_at, id).
//	grants  one row per grant, indexed by (share_id, created_at, id)
//	        and (parent, created_at, id); the verifier, never a secret.
//	log     (share, cursor) → op_id, batch_id, seq, kind, key, body, del,
//	        at, digest. Cursors earliest..head with no gap.
//	ops     (share, op_id) → cursor, digest: the permanent op-id index;
//	        compaction keeps every row.
//	state   (share, kind, key) → body, cursor, at, digest: the newest
//	        version of each key (apply.Supersedes); a delete removes the
//	        row.
//	base    as state: after a compaction, the value at earliest-1 of
//	        each key written since whose earlier write was compacted.
//	        The state at earliest-1 is the state rows older than
//	        earliest plus base, which Fork starts from. An append that
//	        changes a compacted entity first copies it to base.
//	audit   seq (identity) → at, action, share_id, grant_id, parent,
//	        scope, epoch, peer, result; indexed by (share_id, seq).
//
// Schema 2 adds the change notices (listen.go, WatchChanges): triggers
// call pg_notify on the channel sharevat_changes when a grant is revoked
// and when a share's epoch, deletion or settings change, so the notice
// is delivered when, and only if, its transaction commits. Schema 4 takes
// the append notice (a share's new head) out of the trigger: the
// appending Store sends it right after the commit, coalesced per share,
// from one goroutine (notice.go), because PostgreSQL serializes the
// commits of notifying transactions, WAL flush included. Schema 3 adds
//
//	vault   name → value: what every vat must agree on, written once
//	        (Claim): the pepper's fingerprint.
//
// and schema 6
//
//	door_sessions  (creator, session) → share_id (unique), entry: the
//	               session index every vat shares (doorsession.go).
//
// Every string is bytea (a Go string may hold any bytes, which text
// refuses), every time bigint Unix nanoseconds (0 for the zero time),
// every uint64 its int64 bits. Delete removes a share's log, ops, state
// and base rows; compaction removes log rows, so their space is reused
// after VACUUM (autovacuum).
package pg
