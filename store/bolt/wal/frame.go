package wal

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// frameHeader is the size of a record's frame before its data.
const frameHeader = 16

// MaxRecord bounds one record's data; a longer length is a torn or
// damaged frame.
const MaxRecord = 1 << 30

// ErrCorrupt is damage in the log that is not a torn tail.
var ErrCorrupt = errors.New("wal: the log is damaged")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Record is one record of the log.
type Record struct {
	LSN  uint64
	Data []byte
}

// appendFrame appends the frame of data at lsn to b.
func appendFrame(b []byte, lsn uint64, data []byte) []byte {
	start := len(b)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint64(b, lsn)
	b = append(b, data...)
	binary.LittleEndian.PutUint32(b[start+4:], frameCRC(b[start:]))
	return b
}

// frameCRC is the checksum of a frame: its length, LSN and data.
func frameCRC(frame []byte) uint32 {
	crc := crc32.Checksum(frame[:4], castagnoli)
	return crc32.Update(crc, castagnoli, frame[8:])
}

// parseFrames reads the frames of one segment, whose first LSN is
// first. It returns the records (their Data pointing into buf), the
// offset just past the last good frame, and why it stopped before the
// end of buf ("" if it did not).
func parseFrames(buf []byte, first uint64) (recs []Record, end int, stop string) {
	want := first
	for end < len(buf) {
		rest := buf[end:]
		if len(rest) < frameHeader {
			return recs, end, fmt.Sprintf("%d bytes too short for a frame", len(rest))
		}
		n := binary.LittleEndian.Uint32(rest)
		switch {
		case n == 0:
			return recs, end, "a frame of length 0"
		case uint64(n) > MaxRecord || int(n) > len(rest)-frameHeader:
			return recs, end, fmt.Sprintf("a frame of length %d runs past the end", n)
		}
		frame := rest[:frameHeader+int(n)]
		if frameCRC(frame) != binary.LittleEndian.Uint32(frame[4:]) {
			return recs, end, "a frame fails its checksum"
		}
		if lsn := binary.LittleEndian.Uint64(frame[8:]); lsn != want {
			return recs, end, fmt.Sprintf("a frame carries LSN %d where %d was next", lsn, want)
		}
		recs = append(recs, Record{LSN: want, Data: frame[frameHeader:]})
		want++
		end += len(frame)
	}
	return recs, end, ""
}
