// Package outbox persists the client's durable outbox (docs/design.md §6) in
// one go.etcd.io/bbolt file that the caller chooses. It is the only
// package besides store/bolt that imports bbolt. The client.Outbox type
// drives it; this package only stores and moves records, and knows
// nothing of connections.
//
// # Life of an op
//
// Enqueue writes ops as pending, in enqueue order. Next takes the pending
// ops at the front and assigns them to a batch (batch id and seq within
// the batch), durably, before they are sent; until that batch is acked,
// Next returns exactly the same batch again, so a resend after a lost
// reply carries the same batch id, seqs and op ids. Ack matches the
// server's results to the batch's ops by op id and moves each op to done
// (applied or duplicate, with its cursor) or failed (rejected, with
// reason and message). Failed ops are never sent again.
//
// At most one batch is assigned and pending at a time, and batches are
// assigned from the front of the queue, so ops reach the server in
// enqueue order.
//
// # Durability, locking, concurrency
//
// Every write returns only after its transaction has committed, and bbolt
// fsyncs on commit; a newly created file also has its directory synced.
// The file is created with mode 0600 and locked while open: a second Open
// of the same file, by this process or another, waits up to
// Options.LockTimeout and then fails with sharevat.EUnavailable. A DB is
// safe for concurrent use, but Next and Ack assume one flusher at a time
// (client.Outbox serialises them). Files never hold a token.
//
// # Compaction
//
// bbolt reuses the pages of acked and pruned records but never shrinks
// its file, so after a large burst of ops the file would keep its peak
// size. DB.Compact rewrites a file that is at least half, and at least
// 1 MiB, free pages: it copies the live data into "<path>.compact"
// (every copy transaction synced), renames that over the path and syncs
// the directory, so a crash leaves the old file or the new one, whole,
// at the path (a leftover "<path>.compact" is removed at the next Open).
// The new file is locked before the rename, so the file at the path is
// locked throughout; a process that was waiting for the old file's lock
// finds, once it gets it, that the file is no longer at the path, and
// opens the path again. Open compacts a sparse file, and client.Outbox
// does after a flush that emptied it.
//
// # Damaged files
//
// A new outbox file appears at its path only once bbolt has written its
// first pages (store/internal/boltutil.Open), so an outbox is never
// legitimately empty: Open refuses a 0-byte file, and one that fails the
// structural check (cut short, damaged pages), with one line naming the
// file ("the outbox file <path> is damaged: …; restore it from a
// backup"), and leaves it untouched. The check runs only under the
// file's lock and only while the locked file is the one at the path, so a
// file that its holder compacted while Open waited is opened again, never
// called damaged. A damaged page met later fails that
// call with an error naming the file, never a panic. A write that fails
// for want of space is EUnavailable.
//
// # Damaged records
//
// bbolt checks its pages' structure, not their data, so every record and
// every ids entry is sealed with a CRC-32C of its key and content
// (checksum.go). One that fails it is a *DamagedRecordError, naming the
// file, the record (state, enqueue seq) and its op id as far as it can be
// read: Next never sends it (the healthy ops go around it), the listings
// leave it out, Status counts it in Damaged, Damaged lists it and
// DiscardDamaged drops it. The meta values are not sealed.
//
// # On-disk layout, format version 2
//
// Integers are big-endian. Records are JSON (see record.go), times in
// RFC 3339 with nanoseconds, each value sealed: 4 bytes of CRC-32C
// (Castagnoli) of key ‖ content, then the content. Format 1 (no seals)
// is upgraded in place, in one transaction, when Open first meets it; a
// format 1 record that does not decode is left unsealed, so that it reads
// as damaged.
//
//	meta     "format"  → 1 byte, the format version (2)
//	         "share"   → the share id the outbox is bound to (once known)
//	         "server"  → the server URL last flushed to (informational)
//	         "head"    → 8 bytes, the share's head in the last ack
//	         "error"   → JSON {msg, at}: the last flush error, cleared by
//	                     the next ack
//	         bucket sequence: the last enqueue seq handed out
//	pending  enqueue seq (8 bytes) → JSON record: the op, enqueue time,
//	         and once assigned its batch id and seq in the batch
//	done     enqueue seq → JSON record with the result (applied or
//	         duplicate, cursor, ack time) and no body; the oldest are pruned beyond
//	         Options.KeepDone
//	failed   enqueue seq → JSON record with the result (rejected, reason,
//	         message); kept until the op id is enqueued again
//	ids      op id → enqueue seq (8 bytes) ‖ state (1 byte: 0 pending,
//	         1 done, 2 failed), sealed with the op id as its key
package outbox
