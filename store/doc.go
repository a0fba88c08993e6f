// Package store groups the storage backends of sharevat, the contract
// suite they all pass (docs/design.md §8), and the append engine they
// share.
//
//   - store/apply: the append engine (docs/design.md §5): the checks each
//     op of a batch goes through inside the backend's write transaction,
//     and the op content digest. Standard library and root package only.
//   - store/bolt: the embedded bbolt backend, one file in the data
//     directory; also that file's backup (Backup, BackupFile) and offline
//     check (Check), which are the backend's own, not sharevat.Store's.
//   - store/storetest: the contract suite, run by every backend's tests
//     through storetest.Run.
//   - store/outbox: the client's durable outbox file, driven by
//     client.Outbox.
//   - store/internal/boltutil: what the two bbolt files share. Only the
//     packages under store/ import bbolt.
//   - store/internal/commit: the group committer store/bolt and store/pg
//     both run their appends through; each gives it a Leader that does
//     one group's I/O.
//   - store/internal/core: what store/bolt and store/pg decide alike
//     (the checks of a new share, fork, compaction, epoch bump, append
//     and listing, and the damaged-record error), so each backend keeps
//     only its own I/O.
//
// Backends implement sharevat.Store (the interfaces live in the root
// package), run appends through store/apply, and translate their own
// errors into domain errors (sharevat.Errorf) where the interface
// documents a code; every other failure is returned wrapped and becomes
// EInternal at the RPC boundary.
package store
