// Package vaultcopy copies a vault between the two stores: from a
// stopped vat's bbolt file into an empty PostgreSQL database
// (ToPostgres, Copy) and back into a new bbolt file (FromPostgres,
// Replay). It is what `sharevat migrate` runs, and the only package
// that imports both store/bolt and store/pg (docs/design.md §12).
//
// The way there writes rows as they are through sharevat.VaultLoader:
// every share (deleted ones too) with its metadata, settings, epoch,
// log, op-id index, state and what its compactions kept; every grant
// with its verifier, revoked ones too; the admin grants; the audit log
// with its sequence numbers. No token changes.
//
// The way back goes through the bbolt store's own writes: each share is
// created again (a fork by forking its parent, a compacted share at its
// compaction point with bolt.DB.CreateCompacted) and its log appended
// again batch by batch at each batch's time, which gives the same
// cursors, op ids, digests and state; grants are stored as they are,
// deletions done again, the audit log appended in order (renumbered
// from 1).
//
// Both ways need the vats stopped: ops appended meanwhile would be
// missed. Errors carry sharevat codes: EConflict for a destination that
// already holds a vault, EUnavailable (from store/bolt) for a bbolt file
// a running vat holds, EInternal for a source that changed or ended
// while it was read; others are the stores' own.
package vaultcopy
