// Package exportfile reads and writes the sharevat export format
// (docs/export-format.md): JSON Lines, a header line, then, in version 2,
// the base state a compaction kept, then one line per op in cursor
// order. It also reads opencode's session exports ('opencode export
// <sessionID>'), mapped onto the standard kinds.
//
// Write writes one share from a Log (the Go client's Reader is one);
// Open reads an export, or an opencode export, as a Source of the ops
// that rebuild the share. Readers stream: memory is bounded by the
// largest op, not by the size of the file. The command line (flags,
// progress, the resumable import's state) is in cmd/sharevat.
//
// Errors: a malformed input is a *FormatError naming the line (or byte);
// an input that differs on its second reading (Source.Again) is a
// *ChangedError.
package exportfile
