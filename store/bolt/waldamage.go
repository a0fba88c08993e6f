package bolt

import (
	"errors"
	"fmt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt/wal"
	"github.com/sharevat/sharevat/store/internal/boltutil"
)

// walDamageError is a write-ahead log the vat will not open because a
// segment is damaged where no crash could have torn it: records past
// the damage were acknowledged, and cutting them off would lose them
// without a word. Its one line names the segment and offset, says what
// that means and how to recover; it is ECorrupt.
type walDamageError struct {
	damage     *wal.DamageError
	checkpoint uint64 // the last record the data file holds
}

func (e *walDamageError) Error() string {
	d := e.damage
	return fmt.Sprintf("the write-ahead log segment %s is damaged at offset %d (%s): this is not the torn tail a crash leaves, "+
		"so log record %d and the records after it, acknowledged appends, cannot be read (the data file holds the log up to record %d); nothing was changed. "+
		"Restore the data directory from a backup; or, to give up log record %d and every record after it, cut the segment "+
		"at the damage ('truncate -s %d %s'), remove any segment after it, and start again",
		d.Path, d.Offset, d.Detail, d.LSN, e.checkpoint, d.LSN, d.Offset, d.Path)
}

// Unwrap makes the error ErrCorrupt and ECorrupt.
func (e *walDamageError) Unwrap() []error {
	return []error{errCorrupt, sharevat.Errorf(sharevat.ECorrupt, "the write-ahead log is damaged")}
}

// walDamaged words a log that cannot be replayed, whose data file
// holds the records up to checkpoint: damage in a segment as a
// *walDamageError, a record that does not decode or follow on as a
// damaged file; other errors as they are.
func walDamaged(dir string, checkpoint uint64, err error) error {
	var wd *wal.DamageError
	if errors.As(err, &wd) {
		return &walDamageError{damage: wd, checkpoint: checkpoint}
	}
	var de *boltutil.DamagedError
	if errors.As(err, &de) || (!errors.Is(err, wal.ErrCorrupt) && !errors.Is(err, errCorrupt)) {
		return fmt.Errorf("bolt: write-ahead log: %w", err)
	}
	return &boltutil.DamagedError{Kind: "write-ahead log", Path: dir, Detail: err.Error()}
}
