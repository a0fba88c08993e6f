// Package bolt is the embedded storage backend of sharevat: an
// implementation of sharevat.Store over one go.etcd.io/bbolt file
// (docs/design.md §8). It is the only package in the module that imports bbolt.
//
// # Durability and concurrency
//
// Every write method returns only after what it wrote is durable: in the
// write-ahead log (appends, see below) or in the data file, which bbolt
// fsyncs on commit (unless Options.NoSync, which is for tests and
// benchmarks only). A DB is safe for concurrent use. Appends are
// group-committed: an Append that arrives while another group is being
// committed waits, and the next group (up to 128 calls) is decided
// together and made durable with one fdatasync. A lone Append commits at
// once; no timer is involved. Each call in a group still sees the writes
// of the calls before it. With the log a call whose decision fails (a
// damaged record) fails alone; with NoWAL a group is one read-write
// transaction with one fsync, and a store failure in any call makes every
// call of the group retry alone, so one bad call cannot fail the others.
//
// # Write-ahead log
//
// Unless Options.NoWAL, appends go through a write-ahead log (package
// wal: segments of CRC-32C-framed records beside the data file, in
// <path>.wal, or in Options.WALDir with <path>.wal a link to it), as
// etcd puts its WAL in front of its bbolt backend:
//
//   - Decide (walpipe.go, under the order lock): the group's calls run
//     the append engine (store/apply) against a read transaction of the
//     data file, the overlay (acknowledged, not yet in the data file) and
//     the stage (ops of groups written, not yet durable, and of the calls
//     before in this group); each call that applies ops becomes one
//     record (walrecord.go), and the group's records are written with one
//     write. Then the next group may be decided.
//   - Sync (under pubMu): one fdatasync covers every record written so
//     far; then the records are published to the overlay, in LSN order,
//     and the calls answered. Nothing is answered or readable before it
//     is durable; a group that wrote nothing (duplicates only) waits for
//     the groups its answers rest on. A failed fdatasync fails every
//     later group until the process restarts (the log refuses writes).
//   - Apply (walapply.go, in the background): every Options.ApplyEvery
//     (1 s) or once Options.ApplyBytes (4 MiB) are pending, up to 32 MiB
//     of records go into the data file in one transaction, which also
//     moves the checkpoint (the last LSN it holds, key "wal" of the
//     sharevat bucket); the overlay is then trimmed and whole segments at
//     or below the checkpoint removed.
//   - Read: Read, Snapshot, Share, Shares, ListShares, Children and
//     UpdateMeta's answer lay the overlay over the data file, so every
//     acknowledged op is seen at once, in cursor order. Writes that
//     change a log, an epoch or a share's existence (compaction, fork,
//     delete, epoch bump) and Backup and Flush are exclusive: appends
//     wait while the whole log is applied first (fork and delete are
//     rare; compaction is retention's, at most one pass a minute).
//   - Bound: at most Options.MaxPendingBytes (128 MiB) of log may wait
//     for the data file. Past it appends wait for the applier (10 s at
//     most), and while its last attempt failed (a full disk) they are
//     refused at once with EUnavailable; memory and replay stay bounded.
//   - Open replays the records past the checkpoint into the overlay (a
//     torn tail, the write a crash cut, is cut off; damage elsewhere is
//     ECorrupt) and fsyncs the log's tail before answering. Close applies
//     the whole log. NoWAL applies a log left by an earlier run and
//     removes it; Check verifies the log against the data file.
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
// Deleted is listed by Share and Shares (and ListShares on request) but
// is ENotFound to every other method. A read from before a share's
// earliest readable cursor, or a fork before earliest-1, is ECompacted,
// naming the earliest cursor. After Close every method fails with EUnavailable. A write that
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
// read-only in time proportional to its free pages, not its size
// (boltutil.QuickCheck): bbolt's meta page checks, the file holding
// every page the meta page counts, the persisted freelist (every id in
// range, sorted, once, none of the meta, freelist or root pages) and the
// root and each top-level bucket's root, first and last leaf, under
// recover and debug.SetPanicOnFault. bbolt persists the freelist
// (boltOptions), so it does not rebuild it at open by walking every
// page; a file without one (written by an older build) is walked whole
// first, as that rebuild runs on a goroutine of bbolt's where its panics
// could not be recovered, and gets one. Check walks the whole file on
// demand.
// A page damaged later is met inside some transaction: every transaction
// runs under boltutil.Guard, so that call answers ECorrupt (rolled back)
// and the process lives on.
//
// Every record served is checked: Read and Fork check each log record's
// digest (apply.Digest of kind, key, body, delete) and that the op-id
// index maps its op id to its cursor and digest; Snapshot checks each
// entity against the digest and time of the log record that wrote it
// (a version-2 entity, whose record was compacted, against the digest it
// carries); an op id found in the index (a duplicate, a met dependency)
// is checked against the log record it points at, unless that record was
// compacted. The format gives the batch id, seq and time of a log record
// no check of their own.
//
// # Share lifecycle
//
// Fork copies the parent's log records and op-id index entries up to
// the fork cursor as bytes (a record holds neither its cursor nor its
// share) after checking each record, and rebuilds the fork's state by
// replaying the copied records; all in one transaction, which for a very
// long log holds the write lock as long as the copy takes. Delete keeps
// the share record (marked deleted: the id is never reused), revokes
// every grant and drops logs/<id>, whose pages bbolt reuses. Every
// append that applies ops rewrites the share record to move
// Meta.UpdatedAt (and share_updated), so listings are newest activity
// first.
//
// Compact deletes the log records before a cursor and records it as the
// share's earliest readable cursor. The op-id index keeps every op id
// (cursor and digest: what a duplicate or a dependency needs): the
// dropped ops' entries move from ops, one bbolt entry per op id, to the
// sealed index, where they are packed into page-sized blocks sorted by
// op id, prefix-compressed, with a cursor delta and 8 bytes of the
// digest (sealed.go). So what a compacted op leaves on disk is about
// 15–30 bytes (ids that grow; up to ~60 for random ones) instead of
// 130–180, and it still grows with every op: exactly-once for ever
// needs every op id. The state stays exact: an
// entity whose log record is dropped is rewritten as a version-2 value
// carrying its own digest, and the base bucket keeps, for every entity
// changed since, its value as of the earliest cursor minus one, so the
// state at any cursor from there on (a fork) can still be rebuilt: the
// state entities older than the earliest cursor, then base, then the
// readable log. Each append that overwrites or deletes a compacted
// entity first copies it to base.
//
// Backup (a running DB) and BackupFile (a stopped data directory) write
// a consistent copy of the whole file; Check verifies a file offline and
// lists its problems. Both are this package's, not sharevat.Store's: a
// byte copy of a bbolt file means nothing to another backend.
//
// # On-disk layout, format 4
//
// All integers are big-endian unless marked uvarint (encoding/binary
// unsigned varint). A "string" is uvarint length followed by that many
// bytes. Times in binary records are int64 Unix nanoseconds with 0 for the
// zero time; times in JSON records are RFC 3339 with nanoseconds, in UTC.
// Every value comes back with its times in UTC.
//
// Top-level buckets:
//
//	sharevat        "format" → 1 byte, the file's format (4). A format-1
//	                file (no grant_children) or format-2 file (no share
//	                indexes) is upgraded at open by building what it
//	                lacks, in one transaction; a format-3 file (compacted
//	                op ids in ops) is marked 4 and "sealing" at once, and
//	                its compacted op ids are moved to the sealed index in
//	                transactions of 65,536; the mark goes when the move is
//	                done (a move cut short resumes at the next Open;
//	                lookups read both indexes meanwhile). A build of an
//	                older format refuses a newer file.
//	shares          share id → 0x01 ‖ JSON shareRecord
//	                {id, meta{title, projectId, directory, version,
//	                status, createdAt, updatedAt, statusAt}, epoch, head,
//	                deleted, deletedAt, ownerRoot, parentId, forkCursor,
//	                earliest, settings{privacy, retainOps, retainFor
//	                (ns)}}; zero values omitted (earliest 0 means 1).
//	                head is informational only: the head of a live share
//	                is derived from the last key of logs/<share>/log (or
//	                earliest-1 when a compaction dropped every record), so
//	                it never goes stale; a deleted share keeps the head
//	                it had.
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
//	share_updated   8-byte (2^64-1 − updatedAt Unix ns) ‖ share id →
//	                empty. Every share, deleted ones too; ListShares walks
//	                it: newest update first, then by id. A page token is
//	                base64url(0x01 ‖ the key of the last share listed).
//	share_status    share id → 1 byte version (1) ‖ 1 byte status ‖
//	                8-byte statusAt ‖ title (the rest). Live shares only;
//	                Statuses reads nothing else.
//	share_children  uvarint len(parent id) ‖ parent id ‖ 8-byte createdAt
//	                ‖ child id → empty. Live forks, under their parent
//	                (deleted or not), oldest first; Children reads it.
//	audit           8-byte seq → 0x01 ‖ JSON auditRecord {seq, at, action,
//	                share, grant, parent, scope (number), epoch, peer,
//	                result}. seq comes from the bucket's NextSequence.
//	audit_share     uvarint len(share id) ‖ share id ‖ 8-byte seq → empty.
//	                Index for AuditLog(share); only records with a share.
//	door_sessions   creator ‖ 0x00 ‖ session → JSON DoorSession (its
//	                strings as bytes; store/internal/core). The session
//	                index (doorsession.go); made by the first claim.
//	door_session_shares share id → the door_sessions key naming it.
//	logs            share id → nested bucket, created with the share and
//	                dropped by Delete, holding:
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
//	        and nothing after the body. Cursors run from the share's
//	        earliest to its head with no gap.
//	ops     op id → 8-byte cursor ‖ 32-byte digest (exactly 40 bytes).
//	        The op-id index of the readable log (cursor ≥ earliest).
//	sealed  (made by the first compaction) the op-id index of compacted
//	        ops: the first op id of a block → version (1) ‖ uvarint n
//	        ‖ n entries of uvarint shared ‖ uvarint len(suffix) ‖ suffix
//	        ‖ varint cursor delta ‖ 8 bytes of the digest; an entry's op
//	        id is the first shared bytes of the one before (the key, for
//	        the first) and suffix, its cursor the one before (0 for the
//	        first) plus the delta. Op ids increase within and across
//	        blocks; a block's key and value take at most 3,900 bytes
//	        (one page) unless it holds one entry; no op id is in both
//	        ops and sealed, and ops ∪ sealed holds exactly one op id per
//	        cursor from 1 to the head.
//	state   kind ‖ 0x00 ‖ key → entity, version 1:
//	          offset 0   1 byte   version (1)
//	          offset 1   8 bytes  cursor of the op that wrote it
//	          offset 9   8 bytes  at (int64 Unix ns)
//	          offset 17  …        body (the rest of the value)
//	        or, for an entity whose log record was compacted, version 2:
//	          offset 0   1 byte   version (2)
//	          offset 1   8 bytes  cursor
//	          offset 9   8 bytes  at
//	          offset 17 32 bytes  digest of the op that wrote it
//	          offset 49  …        body
//	        Kinds never contain 0x00, so byte order of the bucket key is
//	        (kind, key) order. A delete op removes the entity.
//	base    (made by the first compaction) kind ‖ 0x00 ‖ key → a
//	        version-2 entity: the value, as of cursor earliest-1, of an
//	        entity written since; none for a key whose state entity is
//	        itself older than earliest.
//
// A value whose version byte is unknown, or that is too short or too long
// for its format, is reported as a corrupt record: an error, never a
// panic.
package bolt
