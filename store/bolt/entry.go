package bolt

import (
	"encoding/binary"
	"slices"

	"sharevat"
)

// Sizes of the fixed parts of binary values (see doc.go).
const (
	entryFixed  = 1 + 1 + 8 + 4 + 32
	entityFixed = 1 + 8 + 8
	flagDelete  = 1
)

// encodeEntry encodes a log value. The cursor is the key, not the value.
func encodeEntry(e *sharevat.Entry) []byte {
	n := entryFixed + 5*binary.MaxVarintLen64 + len(e.OpID) + len(e.BatchID) +
		len(e.Kind) + len(e.Key) + len(e.Body)
	b := append(make([]byte, 0, n), formatVersion, 0)
	if e.Delete {
		b[1] = flagDelete
	}
	b = binary.BigEndian.AppendUint64(b, unixNano(e.At))
	b = binary.BigEndian.AppendUint32(b, e.Seq)
	b = append(b, e.Digest[:]...)
	for _, s := range []string{e.OpID, e.BatchID, e.Kind, e.Key} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(e.Body)))
	return append(b, e.Body...)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeEntry decodes a log key and value. The result shares no memory
// with k or v.
func decodeEntry(k, v []byte) (sharevat.Entry, error) {
	c, err := decodeU64Key(k)
	if err != nil {
		return sharevat.Entry{}, err
	}
	if len(v) < entryFixed || v[0] != formatVersion || v[1]&^flagDelete != 0 {
		return sharevat.Entry{}, corruptf("log entry %d: bad header", c)
	}
	e := sharevat.Entry{
		Cursor: sharevat.Cursor(c), Delete: v[1]&flagDelete != 0,
		At:  fromUnixNano(binary.BigEndian.Uint64(v[2:])),
		Seq: binary.BigEndian.Uint32(v[10:]),
	}
	copy(e.Digest[:], v[14:entryFixed])
	r := reader{b: v[entryFixed:]}
	e.OpID, e.BatchID, e.Kind, e.Key = r.string(), r.string(), r.string(), r.string()
	e.Body = r.bytes()
	if err := r.end(); err != nil {
		return sharevat.Entry{}, corruptf("log entry %d: %v", c, err)
	}
	return e, nil
}

// encodeEntity encodes the state value that entry e writes.
func encodeEntity(e *sharevat.Entry) []byte {
	b := append(make([]byte, 0, entityFixed+len(e.Body)), formatVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(e.Cursor))
	b = binary.BigEndian.AppendUint64(b, unixNano(e.At))
	return append(b, e.Body...)
}

// decodeEntity decodes a state key and value, copying what it keeps.
func decodeEntity(k, v []byte) (sharevat.Entity, error) {
	kind, key, err := splitStateKey(k)
	if err != nil {
		return sharevat.Entity{}, err
	}
	if len(v) < entityFixed || v[0] != formatVersion {
		return sharevat.Entity{}, corruptf("entity %s/%q: bad header", kind, key)
	}
	return sharevat.Entity{
		Kind: kind, Key: key,
		Cursor: sharevat.Cursor(binary.BigEndian.Uint64(v[1:])),
		At:     fromUnixNano(binary.BigEndian.Uint64(v[9:])),
		Body:   slices.Clone(v[entityFixed:]),
	}, nil
}

// reader decodes length-prefixed fields, remembering the first error.
type reader struct {
	b   []byte
	bad string
}

// field reads a uvarint length and that many bytes, not copied.
func (r *reader) field() []byte {
	if r.bad != "" {
		return nil
	}
	n, w := binary.Uvarint(r.b)
	if w <= 0 || n > uint64(len(r.b)-w) {
		r.bad = "truncated field"
		return nil
	}
	out := r.b[w : w+int(n)]
	r.b = r.b[w+int(n):]
	return out
}

// bytes reads a field and copies it.
func (r *reader) bytes() []byte { return slices.Clone(r.field()) }

// string reads a field as a string (a copy).
func (r *reader) string() string { return string(r.field()) }

// end reports the first error, or trailing bytes.
func (r *reader) end() error {
	switch {
	case r.bad != "":
		return corruptf("%s", r.bad)
	case len(r.b) != 0:
		return corruptf("%d trailing bytes", len(r.b))
	}
	return nil
}
