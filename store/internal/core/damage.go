package core

import (
	"errors"
	"fmt"

	"github.com/sharevat/sharevat"
)

// ErrCorrupt marks stored data that failed a check: a value that cannot
// be decoded, a digest that does not match, a record out of place. A
// store logs what it knows of such an error and answers ECorrupt
// (Corrupt).
var ErrCorrupt = errors.New("corrupt record")

// RecordError is a log record (or its op-id index entry, or an entity
// derived from it) that failed its integrity check: it names the share
// and cursor, never the contents.
type RecordError struct {
	Share  sharevat.ShareID
	Cursor sharevat.Cursor
	Detail string
}

// Error says which record failed and how.
func (e *RecordError) Error() string {
	return fmt.Sprintf("%v: share %q cursor %d: %s", ErrCorrupt, e.Share, e.Cursor, e.Detail)
}

// Unwrap makes errors.Is(e, ErrCorrupt) hold.
func (e *RecordError) Unwrap() error { return ErrCorrupt }

// BadRecord wraps err, a decode or digest failure of the record at
// cursor c of share id, as a *RecordError; one already is kept as it
// is, and a nil err stays nil.
func BadRecord(id sharevat.ShareID, c sharevat.Cursor, err error) error {
	if err == nil {
		return nil
	}
	var re *RecordError
	if errors.As(err, &re) {
		return err
	}
	return &RecordError{Share: id, Cursor: c, Detail: err.Error()}
}

// BadRecordf is the *RecordError of the record at cursor c of share id,
// its detail formatted.
func BadRecordf(id sharevat.ShareID, c sharevat.Cursor, format string, args ...any) error {
	return &RecordError{Share: id, Cursor: c, Detail: fmt.Sprintf(format, args...)}
}

// Corrupt is the ECorrupt answer the caller sees for re, naming its
// share and cursor: the operator must restore from a backup.
func Corrupt(re *RecordError) error {
	return sharevat.Errorf(sharevat.ECorrupt, "stored data failed its integrity check (share %s, cursor %d); the operator must restore from a backup", re.Share, re.Cursor)
}
