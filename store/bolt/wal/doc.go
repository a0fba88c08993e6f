// Package wal is the write-ahead log in front of store/bolt's data file
// (docs/design.md §8): appends become durable by one sequential write
// and one fdatasync of checksummed records, and are applied to bbolt
// later, in large batches.
//
// # Files
//
// A log is a directory of segment files named %016x.wal after the log
// sequence number (LSN) of their first record. Records have consecutive
// LSNs across segments. A segment grows until it passes
// Options.SegmentBytes; the next group of records starts a new one.
// Segments whose records are all at or below the checkpoint (what the
// data file already holds) are removed by Release; the last segment is
// never removed, so the log always knows its next LSN.
//
// # Records
//
// Each record is framed, all integers little-endian:
//
//	offset 0   4 bytes  n, the length of the data (at least 1)
//	offset 4   4 bytes  CRC-32C (Castagnoli) of bytes 0–3, 8–15 and the data
//	offset 8   8 bytes  LSN
//	offset 16  n bytes  data
//
// A frame that runs past the end of the file, has a zero length, fails
// its checksum or does not carry the next LSN ends the log. It is a torn
// tail (the write the process died in), which Open cuts off before
// appending, only if it is the end of what was written: in the last
// segment, a frame the file ends inside, or zeros at the end of the file
// (from a 512-byte sector boundary inside the frame, or anywhere inside
// it when the zeros go on past it: a zero-filled or preallocated file).
// Anything else is damage, and Open refuses the log with a *DamageError
// (ErrCorrupt): a good frame after the bad one, a last frame that is
// whole with the length the file gives it, a whole frame failing its
// checksum without such zeros, or a bad frame in an earlier segment.
// What a torn tail held was never acknowledged: Append returns only
// after the fdatasync of its records.
//
// # Failures
//
// A write that fails (a full disk) is undone by truncating the segment
// back, and the log goes on. A failed fdatasync leaves the file in an
// unknown state: the log refuses every later Append (etcd stops too),
// until the process reopens it.
//
// The file layer is an FS, so tests can put a Lossy one under the log:
// it forgets, on Crash, everything written after the last fdatasync, as
// a power loss does.
package wal
