package bolt

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
)

// formatVersion is the version byte that leads every versioned value.
const formatVersion = 1

// errCorrupt marks a stored value that cannot be decoded or fails its
// digest; the caller sees ECorrupt (db.wrap).
var errCorrupt = boltutil.ErrCorrupt

// corruptf returns an error wrapping errCorrupt.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errCorrupt, fmt.Sprintf(format, args...))
}

// u64Key encodes a cursor or sequence number as an 8-byte key.
func u64Key(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }

// decodeU64Key decodes an 8-byte key.
func decodeU64Key(k []byte) (uint64, error) {
	if len(k) != 8 {
		return 0, corruptf("key is %d bytes, want 8", len(k))
	}
	return binary.BigEndian.Uint64(k), nil
}

// prefixKey returns uvarint len(prefix) ‖ prefix ‖ rest: a key whose
// prefix part is unambiguous for any prefix, even the empty one.
func prefixKey(prefix string, rest []byte) []byte {
	k := binary.AppendUvarint(nil, uint64(len(prefix)))
	k = append(k, prefix...)
	return append(k, rest...)
}

// unixNano encodes a time, mapping the zero time to 0.
func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

// fromUnixNano decodes a time written by unixNano, in UTC.
func fromUnixNano(n uint64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(n)).UTC()
}

// utc returns t in UTC, keeping the zero time zero.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}

// encodeJSON returns the version byte followed by v as JSON.
func encodeJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return append([]byte{formatVersion}, b...), nil
}

// decodeJSON reverses encodeJSON.
func decodeJSON(b []byte, v any) error {
	if len(b) == 0 || b[0] != formatVersion {
		return corruptf("unknown version or empty value")
	}
	if err := json.Unmarshal(b[1:], v); err != nil {
		return fmt.Errorf("%w: %v", errCorrupt, err)
	}
	return nil
}

// opIndexValue encodes an ops-bucket value: cursor ‖ digest.
func opIndexValue(c sharevat.Cursor, digest [32]byte) []byte {
	v := binary.BigEndian.AppendUint64(make([]byte, 0, 40), uint64(c))
	return append(v, digest[:]...)
}

// decodeOpIndex reverses opIndexValue.
func decodeOpIndex(v []byte) (sharevat.Cursor, [32]byte, error) {
	var d [32]byte
	if len(v) != 40 {
		return 0, d, corruptf("op index value is %d bytes, want 40", len(v))
	}
	copy(d[:], v[8:])
	return sharevat.Cursor(binary.BigEndian.Uint64(v)), d, nil
}

// stateKey returns kind ‖ 0x00 ‖ key.
func stateKey(kind, key string) []byte {
	k := make([]byte, 0, len(kind)+1+len(key))
	k = append(k, kind...)
	k = append(k, 0)
	return append(k, key...)
}

// splitStateKey reverses stateKey.
func splitStateKey(k []byte) (kind, key string, err error) {
	i := bytes.IndexByte(k, 0)
	if i < 0 {
		return "", "", corruptf("state key has no separator")
	}
	return string(k[:i]), string(k[i+1:]), nil
}
