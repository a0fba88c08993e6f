// Package bolt is the embedded storage backend of sharevat: an
// implementation of sharevat.Store over one go.etcd.io/bbolt file
// (docs/design.md §8). It is the only package in the module that imports bbolt.
//
// # Durability and concurrency
//
// Every write method returns only after its transaction has committed,
// and bbolt fsyncs on commit (unless Options.NoSync, which is for tests and
// benchmarks only). A DB is safe for concurrent use. Appends are
// group-committed: an Append that arrives while another group is being
// committed waits, and the next group (up to 128 calls) runs in one
// read-write transaction with one fsync. A lone Append commits at once; no
// timer is involved. Each call in a group still sees the writes of the
// calls before it, and a store failure in any call makes every call of the
// group retry alone, so one bad call cannot fail the others.
//
// The data file is locked while open. A second Open of the same file, by
// this process or another, fails after Options.LockTimeout with
// sharevat.EUnavailable.
//
// # Errors
//
// Methods return the domain errors that sharevat.Store documents, plus a
// few it leaves open, listed on each method: EInvalid for empty ids, for
// an owner grant at another epoch than its share, for a nil batch or
// invalid limits, and for a read or audit limit below 1. A share marked
// Deleted is listed by Share and Shares but is ENotFound to every other
// method. After Close every method fails with EUnavailable. A write that
// fails for want of space (ENOSPC, EDQUOT, EFBIG) is EUnavailable, "the
// server's disk is full; retry later". Stored data that fails a check (a
// record that does not decode, a log record whose digest or op-id index
// entry disagrees, a panic on a damaged page) is ECorrupt; the share and
// cursor go to Options.Logger, never op contents. Anything else (I/O, a
// canceled context) is returned wrapped as "bolt: <operation>: …", is
// not a domain error, and so becomes EInternal at the RPC boundary.
//
// # Damaged files
//
// Open refuses an empty (0-byte) file and a damaged one with one line,
// "the data file <path> is damaged: <detail>; restore it from a backup"
// (boltutil.DamagedError), never a panic. A new file appears at its path
// only once bbolt has written its first pages, so an empty file is never
// one this package left. Before opening for writing, Open checks the file
// read-only (boltutil.Check): bbolt's meta page checks, the file holding
// every page the meta page counts, and a walk of every bucket, key and
// value under recover and debug.SetPanicOnFault. That walk reads what
// bbolt's own freelist rebuild at open (NoFreelistSync) reads anyway, on
// a goroutine of bbolt's where its panics could not be recovered.
// A page damaged later is met inside some transaction: every transaction
// runs under boltutil.Guard, so that call answers ECorrupt (rolled back)
// and the process lives on.
//
// Every record served is checked: Read checks each log record's digest
// (apply.Digest of kind, key, body, delete) and that the op-id index
// maps its op id to its cursor and digest; Snapshot checks each entity
// against the digest and time of the log record that wrote it; an op id
// found in the index (a duplicate, a met dependency) is checked against
// the log record it points at. Format 1 gives the batch id, seq and time
// of a log record no check of their own.
//
// # On-disk layout, format 2
//
// All integers are big-endian unless marked uvarint (encoding/binary
// unsigned varint). A "string" is uvarint length followed by that many
// bytes. Times in binary records are int64 Unix nanoseconds with 0 for the
// zero time; times in JSON records are RFC 3339 with nanoseconds, in UTC.
// Every value comes back with its times in UTC.
//
// Top-level buckets:
//
//	sharevat        "format" → 1 byte, the file's format (2; a format-1
//	                file, which had no grant_children, is upgraded at
//	                open by building that index).
//	shares          share id → 0x01 ‖ JSON shareRecord
//	                {id, meta{title, projectId, directory, version,
//	                status, createdAt, updatedAt}, epoch, head, deleted,
//	                ownerRoot}. head is informational only: the head is
//	                derived from the last key of logs/<share>/log, so an
//	                append does not rewrite the share record.
//	grants          grant id → 0x01 ‖ JSON grantRecord
//	                {id, share, parent, scope (number), epoch, verifier
//	                (base64), label, createdBy, createdAt, expiresAt,
//	                revoked, revokedAt, lastUsed}; zero times omitted.
//	share_grants    uvarint len(share id) ‖ share id ‖ grant id → empty.
//	                Index for Grants(share); admin grants have the empty
//	                share id, so their prefix is the single byte 0x00.
//	grant_children  uvarint len(parent id) ‖ parent id ‖ child id →
//	                1 byte version (1) ‖ 1 byte flags (bit 0 = revoked) ‖
//	                8-byte expiresAt (Unix ns; 0: never). Every grant with
//	                a parent; Subtree walks it and the mint quota counts
//	                a parent's live children from it.
//	audit           8-byte seq → 0x01 ‖ JSON auditRecord {seq, at, action,
//	                share, grant, parent, scope (number), epoch, peer,
//	                result}. seq comes from the bucket's NextSequence.
//	audit_share     uvarint len(share id) ‖ share id ‖ 8-byte seq → empty.
//	                Index for AuditLog(share); only records with a share.
//	logs            share id → nested bucket, created with the share,
//	                holding three buckets:
//
// Per-share buckets under logs/<share id>:
//
//	log     8-byte cursor → entry:
//	          offset 0   1 byte   version (1)
//	          offset 1   1 byte   flags: bit 0 = delete; others must be 0
//	          offset 2   8 bytes  at (int64 Unix ns)
//	          offset 10  4 bytes  seq (uint32)
//	          offset 14 32 bytes  digest (apply.Digest)
//	          offset 46  string   op id
//	                     string   batch id
//	                     string   kind
//	                     string   key
//	                     string   body
//	        and nothing after the body.
//	ops     op id → 8-byte cursor ‖ 32-byte digest (exactly 40 bytes).
//	        The permanent op-id index: never pruned while the op is in
//	        the log.
//	state   kind ‖ 0x00 ‖ key → entity:
//	          offset 0   1 byte   version (1)
//	          offset 1   8 bytes  cursor of the op that wrote it
//	          offset 9   8 bytes  at (int64 Unix ns)
//	          offset 17  …        body (the rest of the value)
//	        Kinds never contain 0x00, so byte order of the bucket key is
//	        (kind, key) order. A delete op removes the entity.
//
// A value whose version byte is unknown, or that is too short or too long
// for its format, is reported as a corrupt record: an error, never a
// panic.
package bolt
