package wal

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// sector is the granularity of a write a power loss can lose: what the
// file system had not written reads back as zeros from a multiple of it
// (a 512-byte sector; a file system block is a multiple of it).
const sector = 512

// DamageError is damage in a segment that is not a torn tail: the
// records from LSN on cannot be read, and some of them were
// acknowledged. It wraps ErrCorrupt.
type DamageError struct {
	Path   string // the segment file
	Offset int64  // where its first bad frame starts
	LSN    uint64 // the LSN that frame should have carried
	Detail string // what is wrong there
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("%v: segment %s, offset %d (record %d): %s", ErrCorrupt, e.Path, e.Offset, e.LSN, e.Detail)
}

// Unwrap makes errors.Is(e, ErrCorrupt) hold.
func (e *DamageError) Unwrap() error { return ErrCorrupt }

// tailDamage decides what stops the last segment, buf, at end, where
// parseFrames found no good frame with LSN want. It returns "" for a
// torn tail, and otherwise why it is damage.
//
// A torn tail is only ever the end of what was written, unsynced: a
// frame the file ends inside (a write a crash cut short), or bytes that
// a power loss left as zeros from a sector boundary to the end of the
// file (or past a write cut short in a zero-filled file). So it is
// damage when a good frame follows the bad one (the log went on after
// it), when a frame that runs past the end would be whole with the
// length the file gives it (its length field was damaged), and when a
// bad frame that fits in the file is not explained by zeros at its end
// (a changed byte, not a lost write).
func tailDamage(buf []byte, end int, want uint64) string {
	rest := buf[end:]
	if allZero(rest) {
		return ""
	}
	if off, lsn, ok := nextFrame(rest, want); ok {
		return fmt.Sprintf("a good record (LSN %d) follows at offset %d", lsn, end+off)
	}
	if len(rest) < frameHeader {
		return "" // a header cut short
	}
	n := binary.LittleEndian.Uint32(rest)
	if n == 0 || uint64(n) > MaxRecord || int(n) > len(rest)-frameHeader {
		if wholeAsLast(rest) {
			return fmt.Sprintf("the length field (%d) of the last frame is damaged: the frame is whole", n)
		}
		return "" // a frame cut short
	}
	frame := rest[:frameHeader+int(n)]
	if frameCRC(frame) == binary.LittleEndian.Uint32(frame[4:]) {
		return fmt.Sprintf("a good frame carries LSN %d", binary.LittleEndian.Uint64(frame[8:]))
	}
	if zeroedEnd(buf, end+len(frame)) {
		return "" // a write cut short or lost, zeros after it
	}
	return "a whole frame fails its checksum"
}

// zeroedEnd reports whether the frame of buf that ends at frameEnd is
// explained by zeros at the end of the file: zeros from inside the
// frame to the end of a file that goes on past the frame (a write cut
// short in a zero-filled or preallocated file), or zeros from a sector
// boundary inside the frame to its end (a write a power loss lost).
func zeroedEnd(buf []byte, frameEnd int) bool {
	z := len(buf)
	for z > 0 && buf[z-1] == 0 {
		z--
	}
	switch {
	case z >= frameEnd:
		return false
	case frameEnd < len(buf):
		return true
	}
	return (z+sector-1)/sector*sector < frameEnd
}

// nextFrame finds the first good frame after rest's first byte whose
// LSN is one rest could hold from want on: the log went on after the
// bad frame. It returns its offset in rest and LSN.
func nextFrame(rest []byte, want uint64) (int, uint64, bool) {
	most := want + uint64(len(rest)/(frameHeader+1))
	for off := 1; off+frameHeader < len(rest); off++ {
		h := rest[off:]
		n := binary.LittleEndian.Uint32(h)
		if n == 0 || int64(n) > int64(len(h)-frameHeader) {
			continue
		}
		lsn := binary.LittleEndian.Uint64(h[8:])
		if lsn < want || lsn > most {
			continue
		}
		frame := h[:frameHeader+int(n)]
		if frameCRC(frame) == binary.LittleEndian.Uint32(frame[4:]) {
			return off, lsn, true
		}
	}
	return 0, 0, false
}

// wholeAsLast reports whether rest is one good frame when its length
// field is taken to be the length rest gives it.
func wholeAsLast(rest []byte) bool {
	if len(rest) <= frameHeader || len(rest)-frameHeader > MaxRecord {
		return false
	}
	var l [4]byte
	binary.LittleEndian.PutUint32(l[:], uint32(len(rest)-frameHeader))
	crc := crc32.Update(crc32.Checksum(l[:], castagnoli), castagnoli, rest[8:])
	return crc == binary.LittleEndian.Uint32(rest[4:])
}

// allZero reports whether b holds only zero bytes.
func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
