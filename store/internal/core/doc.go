// Package core holds what store/bolt and store/pg decide alike, so that
// it is written once and each backend keeps only its own I/O: the checks
// of a new share, a fork, a compaction, an epoch bump, an append and a
// listing (checks.go), the settings rule, the answers both give (not
// found, compacted) and the damaged-record error and its ECorrupt answer
// (damage.go). The append rules themselves are store/apply's; the group
// committer is store/internal/commit's.
//
// Every function is pure: no I/O, no clock. It imports only the
// standard library and the root package.
package core
