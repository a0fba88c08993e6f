package bolt

import (
	"errors"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
	"github.com/sharevat/sharevat/store/internal/core"
)

// dataFile words the errors about the data file (boltutil.File).
var dataFile = boltutil.File{Prefix: "bolt", What: "store", DiskFull: "the server's disk is full; retry later"}

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
	var re *core.RecordError
	var pe *boltutil.PanicError
	switch {
	case errors.As(err, &re):
		attrs = append(attrs, "share", string(re.Share), "cursor", uint64(re.Cursor))
	case errors.As(err, &pe):
		attrs = append(attrs, "stack", string(pe.Stack))
	}
	db.opts.Logger.Error("store: stored data failed its integrity check; restore the data file from a backup", attrs...)
	if re != nil {
		return core.Corrupt(re)
	}
	return sharevat.ErrCorrupt
}
