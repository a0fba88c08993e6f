package pg

import (
	"math"
	"strings"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/internal/core"
)

// Values cross to PostgreSQL as the schema keeps them: strings as
// bytea, times as Unix nanoseconds (0: the zero time), uint64s as their
// int64 bits.

// b is s as a bytea parameter, never nil (nil is NULL).
func b[T ~string](s T) []byte {
	if s == "" {
		return []byte{}
	}
	return []byte(s)
}

// str scans a bytea into a string type.
type str[T ~string] struct{ p *T }

// ScanBytes implements pgtype.BytesScanner. NULL scans as "".
func (s str[T]) ScanBytes(v []byte) error {
	*s.p = T(v)
	return nil
}

// sc is the scan target for a string column.
func sc[T ~string](p *T) str[T] { return str[T]{p} }

// ns is t as stored.
func ns(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// fromNS is a stored time, in UTC.
func fromNS(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// i64 is u as stored.
func i64[T ~uint64 | ~uint32](u T) int64 { return int64(u) }

// beyond reports whether c is past any cursor a log can hold, so that
// it has no int64 form to compare with.
func beyond(c uint64) bool { return c > math.MaxInt64 }

// corrupt logs a failed integrity check and returns the ECorrupt error
// the caller sees, naming the share and cursor.
func (st *Store) corrupt(op string, re *core.RecordError) error {
	st.opts.Logger.Error("store: stored data failed its integrity check; restore the database from a backup",
		"op", op, "share", string(re.Share), "cursor", uint64(re.Cursor), "err", re.Detail)
	return core.Corrupt(re)
}

// contentDigest is the digest of the content an entry or entity holds.
func contentDigest(kind, key string, body []byte, del bool) [32]byte {
	return apply.Digest(&sharevat.Op{Kind: kind, Key: key, Body: body, Delete: del})
}

// digestOf checks a stored digest's length and returns it.
// indexedOf is the op-id index entry of opID at cursor c with digest d:
// 32 bytes, or ShortDigestLen for an op a bbolt vault compacted before
// it was migrated here.
func indexedOf(id sharevat.ShareID, opID string, c sharevat.Cursor, d []byte) (sharevat.IndexedOp, error) {
	ix := sharevat.IndexedOp{OpID: opID, Cursor: c}
	if len(d) == sharevat.ShortDigestLen {
		ix.Short = true
		copy(ix.Digest[:], d)
		return ix, nil
	}
	var err error
	ix.Digest, err = digestOf(id, c, d)
	return ix, err
}

func digestOf(id sharevat.ShareID, c sharevat.Cursor, d []byte) ([32]byte, error) {
	if len(d) != 32 {
		return [32]byte{}, core.BadRecordf(id, c, "a digest of %d bytes", len(d))
	}
	return [32]byte(d), nil
}

// prefixed qualifies each column of a comma-separated list with p
// ("grants.").
func prefixed(p, cols string) string {
	parts := strings.Split(cols, ",")
	for i, c := range parts {
		parts[i] = p + strings.TrimSpace(c)
	}
	return strings.Join(parts, ", ")
}
