package pg

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"sharevat"
	"sharevat/store/apply"
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

// errCorrupt marks a failed integrity check (recordError).
var errCorrupt = errors.New("stored data failed its integrity check")

// recordError is a stored record that failed its integrity check: it
// names the share and cursor, never the contents.
type recordError struct {
	share  sharevat.ShareID
	cursor sharevat.Cursor
	detail string
}

func (e *recordError) Error() string {
	return fmt.Sprintf("%v: share %q cursor %d: %s", errCorrupt, e.share, e.cursor, e.detail)
}

// Unwrap makes errors.Is(e, errCorrupt) hold.
func (e *recordError) Unwrap() error { return errCorrupt }

// badRecord is the recordError of the record at cursor c of share id.
func badRecord(id sharevat.ShareID, c sharevat.Cursor, format string, args ...any) error {
	return &recordError{share: id, cursor: c, detail: fmt.Sprintf(format, args...)}
}

// corrupt logs a failed integrity check and returns the ECorrupt error
// the caller sees, naming the share and cursor.
func (st *Store) corrupt(op string, re *recordError) error {
	st.opts.Logger.Error("store: stored data failed its integrity check; restore the database from a backup",
		"op", op, "share", string(re.share), "cursor", uint64(re.cursor), "err", re.detail)
	return sharevat.Errorf(sharevat.ECorrupt, "stored data failed its integrity check (share %s, cursor %d); the operator must restore from a backup", re.share, re.cursor)
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
		return [32]byte{}, badRecord(id, c, "a digest of %d bytes", len(d))
	}
	return [32]byte(d), nil
}

// checkSettings rejects settings no share may have.
func checkSettings(set sharevat.Settings) error {
	switch {
	case set.Privacy > sharevat.PrivacyOff:
		return sharevat.Errorf(sharevat.EInvalid, "unknown privacy policy %d", set.Privacy)
	case set.RetainFor < 0:
		return sharevat.Errorf(sharevat.EInvalid, "retention age %v is negative", set.RetainFor)
	}
	return nil
}

// notFound is the answer for a share that does not exist or is deleted.
func notFound(id sharevat.ShareID) error {
	return sharevat.Errorf(sharevat.ENotFound, "share %q not found", id)
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
