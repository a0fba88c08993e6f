package bolt

import (
	"encoding/binary"
	"time"

	"github.com/sharevat/sharevat"
)

// walRecordVersion is the first byte of a WAL record's data.
const walRecordVersion = 1

// walRecord is one append's applied ops, as the write-ahead log holds
// them (store/bolt/wal frames and checksums the bytes): the data is
//
//	1 byte   version (1)
//	string   share id
//	8 bytes  now (int64 Unix ns): the append's time, for Meta.UpdatedAt
//	uvarint  number of entries, then for each
//	8 bytes  cursor
//	string   the entry as the log bucket stores it (encodeEntry)
//
// Applying it to the data file is what the append did in format 3
// before the log existed: each entry put at its cursor (logView.Put),
// then touchShare.
type walRecord struct {
	lsn     uint64
	share   sharevat.ShareID
	now     time.Time
	entries []sharevat.Entry
	size    int // the data's length
}

// encode returns the record's data.
func (r *walRecord) encode() []byte {
	b := []byte{walRecordVersion}
	b = appendString(b, string(r.share))
	b = binary.BigEndian.AppendUint64(b, unixNano(r.now))
	b = binary.AppendUvarint(b, uint64(len(r.entries)))
	for i := range r.entries {
		b = binary.BigEndian.AppendUint64(b, uint64(r.entries[i].Cursor))
		b = appendString(b, string(encodeEntry(&r.entries[i])))
	}
	r.size = len(b)
	return b
}

// decodeWALRecord decodes a record's data; the result shares no memory
// with data.
func decodeWALRecord(lsn uint64, data []byte) (*walRecord, error) {
	if len(data) < 1 || data[0] != walRecordVersion {
		return nil, corruptf("wal record %d: unknown version", lsn)
	}
	r := &walRecord{lsn: lsn, size: len(data)}
	rd := reader{b: data[1:]}
	r.share = sharevat.ShareID(rd.string())
	if len(rd.b) < 8 {
		return nil, corruptf("wal record %d: truncated", lsn)
	}
	r.now = fromUnixNano(binary.BigEndian.Uint64(rd.b))
	rd.b = rd.b[8:]
	n, w := binary.Uvarint(rd.b)
	if w <= 0 || n > uint64(len(rd.b)) {
		return nil, corruptf("wal record %d: bad entry count", lsn)
	}
	rd.b = rd.b[w:]
	r.entries = make([]sharevat.Entry, 0, n)
	for range n {
		if len(rd.b) < 8 {
			return nil, corruptf("wal record %d: truncated", lsn)
		}
		k := rd.b[:8]
		rd.b = rd.b[8:]
		e, err := decodeEntry(k, rd.field())
		if err != nil || rd.bad != "" {
			return nil, corruptf("wal record %d: %v%s", lsn, err, rd.bad)
		}
		r.entries = append(r.entries, e)
	}
	if err := rd.end(); err != nil {
		return nil, corruptf("wal record %d: %v", lsn, err)
	}
	return r, nil
}
