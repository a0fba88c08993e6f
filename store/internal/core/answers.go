package core

import "github.com/sharevat/sharevat"

// NotFound is the answer for a share that does not exist or is deleted
// (ENotFound).
func NotFound(id sharevat.ShareID) error {
	return sharevat.Errorf(sharevat.ENotFound, "share %q not found", id)
}

// Compacted is the answer to a read of ops a compaction dropped
// (ECompacted). It names the earliest readable cursor and where reading
// resumes: reads and subscriptions take the cursor to read after, so
// that is earliest-1. The vat passes it on as it is, for reads,
// subscriptions and a subscription a compaction overtakes alike.
func Compacted(earliest sharevat.Cursor) error {
	return sharevat.Errorf(sharevat.ECompacted, "ops before cursor %d were compacted; read after cursor %d, or take the snapshot and follow from its cursor",
		earliest, max(earliest, 1)-1)
}

// OrZero drops a partial result when err is set.
func OrZero[T any](v T, err error) (T, error) {
	if err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}
