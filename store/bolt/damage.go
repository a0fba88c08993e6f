package bolt

import (
	"errors"
	"fmt"

	"sharevat"
	"sharevat/store/internal/boltutil"
)

// dataFile words the errors about the data file (boltutil.File).
var dataFile = boltutil.File{Prefix: "bolt", What: "store", DiskFull: "the server's disk is full; retry later"}

// recordError is a log record (or its op-id index entry, or an entity
// derived from it) that failed its integrity check: it names the share
// and cursor, never the contents.
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

// badRecord wraps err, a decode or digest failure of the record at
// cursor c of share id, as a *recordError.
func badRecord(id sharevat.ShareID, c sharevat.Cursor, err error) error {
	if err == nil {
		return nil
	}
	var re *recordError
	if errors.As(err, &re) {
		return err
	}
	return &recordError{share: id, cursor: c, detail: err.Error()}
}

// wrap translates an error of op for the caller (boltutil.File.Wrap)
// and logs what the caller may not see: a corrupt record or a damaged
// page becomes ECorrupt, its share, cursor and detail go to the log; a
// full disk is EUnavailable, its OS error goes to the log.
func (db *DB) wrap(op string, err error) error {
	err = dataFile.Wrap(op, err)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, errCorrupt):
		return db.corrupt(op, err)
	case boltutil.IsDiskFull(err):
		db.opts.Logger.Error("store: disk full", "op", op, "err", err)
	}
	return err
}

// corrupt logs a failed integrity check and returns the ECorrupt error
// the caller sees: it names the share and cursor when known.
func (db *DB) corrupt(op string, err error) error {
	attrs := []any{"op", op, "path", db.path, "err", err}
	var re *recordError
	var pe *boltutil.PanicError
	switch {
	case errors.As(err, &re):
		attrs = append(attrs, "share", string(re.share), "cursor", uint64(re.cursor))
	case errors.As(err, &pe):
		attrs = append(attrs, "stack", string(pe.Stack))
	}
	db.opts.Logger.Error("store: stored data failed its integrity check; restore the data file from a backup", attrs...)
	if re != nil {
		return sharevat.Errorf(sharevat.ECorrupt, "stored data failed its integrity check (share %s, cursor %d); the operator must restore from a backup", re.share, re.cursor)
	}
	return sharevat.ErrCorrupt
}
