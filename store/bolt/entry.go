package bolt

import (
	"encoding/binary"
	"slices"

	"github.com/sharevat/sharevat"
)

// Sizes of the fixed parts of binary values (see doc.go).
const (
	entryFixed    = 1 + 1 + 8 + 4 + 32
	entityFixed   = 1 + 8 + 8
	entity2Fixed  = entityFixed + 32
	flagDelete    = 1
	entityVersion = 2 // an entity that carries its own digest
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

// encodeEntity2 encodes the version-2 state value of e: the entity with
// its log record's digest, for an entity whose log record a compaction
// drops (or dropped: the base bucket).
func encodeEntity2(e *sharevat.Entity, digest [32]byte) []byte {
	b := append(make([]byte, 0, entity2Fixed+len(e.Body)), entityVersion)
	b = binary.BigEndian.AppendUint64(b, uint64(e.Cursor))
	b = binary.BigEndian.AppendUint64(b, unixNano(e.At))
	b = append(b, digest[:]...)
	return append(b, e.Body...)
}

// entityCursor is the cursor a state or base value of either version
// names, without decoding the rest.
func entityCursor(v []byte) (sharevat.Cursor, error) {
	if len(v) < entityFixed || (v[0] != formatVersion && v[0] != entityVersion) {
		return 0, corruptf("entity value of %d bytes: bad header", len(v))
	}
	return sharevat.Cursor(binary.BigEndian.Uint64(v[1:])), nil
}

// entityBody is the body a state or base value of either version holds,
// not copied.
func entityBody(v []byte) ([]byte, error) {
	fixed := entityFixed
	if len(v) > 0 && v[0] == entityVersion {
		fixed = entity2Fixed
	}
	if len(v) < fixed || (v[0] != formatVersion && v[0] != entityVersion) {
		return nil, corruptf("entity value of %d bytes: bad header", len(v))
	}
	return v[fixed:], nil
}

// decodeEntity decodes a state key and value, copying what it keeps.
func decodeEntity(k, v []byte) (sharevat.Entity, error) {
	e, _, err := decodeEntityDigest(k, v)
	return e, err
}

// decodeEntityDigest decodes a state key and a value of either version;
// for version 2 it also returns the stored digest (nil for version 1,
// whose digest is its log record's).
func decodeEntityDigest(k, v []byte) (sharevat.Entity, *[32]byte, error) {
	kind, key, err := splitStateKey(k)
	if err != nil {
		return sharevat.Entity{}, nil, err
	}
	fixed := entityFixed
	if len(v) > 0 && v[0] == entityVersion {
		fixed = entity2Fixed
	}
	if len(v) < fixed || (v[0] != formatVersion && v[0] != entityVersion) {
		return sharevat.Entity{}, nil, corruptf("entity %s/%q: bad header", kind, key)
	}
	e := sharevat.Entity{
		Kind: kind, Key: key,
		Cursor: sharevat.Cursor(binary.BigEndian.Uint64(v[1:])),
		At:     fromUnixNano(binary.BigEndian.Uint64(v[9:])),
		Body:   slices.Clone(v[fixed:]),
	}
	if fixed == entityFixed {
		return e, nil, nil
	}
	d := [32]byte(v[entityFixed:entity2Fixed])
	return e, &d, nil
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
