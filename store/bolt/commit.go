package bolt

import (
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
	"github.com/sharevat/sharevat/store/internal/commit"
)

// lead is the data file's commit.Leader. With the write-ahead log a
// group is a pipeline (walpipe.go): the group is decided and written,
// leadership passes on, and then the group waits for its fdatasync, so
// the next leader decides its group meanwhile. Without it, the group
// commits in one bbolt transaction (commitGroup).
func (db *DB) lead(group []*commit.Call) (then func()) {
	if db.wal == nil {
		db.commitGroup(group)
		return nil
	}
	start := time.Now()
	upTo, ok := db.walDecide(group)
	return func() {
		if ok {
			db.walFinish(group, upTo, start)
		}
	}
}

// commitGroup applies every call of group in one transaction. If the
// transaction fails, each call is retried alone, so that a store failure
// in one call (or in the commit) is reported to that call only.
func (db *DB) commitGroup(group []*commit.Call) {
	start := time.Now()
	err := boltutil.Update(db.bdb, func(tx *bbolt.Tx) error { return applyGroup(tx, group) })
	if err == nil && db.opts.OnCommit != nil {
		db.opts.OnCommit(len(group), commit.Ops(group), time.Since(start))
	}
	if err == nil || len(group) == 1 {
		commit.SetErr(group, err)
		return
	}
	for _, call := range group {
		one := []*commit.Call{call}
		commit.SetErr(one, boltutil.Update(db.bdb, func(tx *bbolt.Tx) error { return applyGroup(tx, one) }))
	}
}

// applyGroup applies each call in tx, stopping at the first store
// failure. Domain errors (an unknown share) are the call's own result:
// they are found before the call writes anything.
func applyGroup(tx *bbolt.Tx, group []*commit.Call) error {
	for _, call := range group {
		call.Ack, call.Err = safeApply(tx, call)
		if call.Err != nil && sharevat.ErrorCode(call.Err) == sharevat.EInternal {
			return call.Err
		}
	}
	return nil
}

// safeApply is applyAppend that turns a panic (a damaged page, or a
// bug) into an error that aborts the transaction (boltutil.Guard), so
// that it cannot leave the followers of a group waiting forever.
func safeApply(tx *bbolt.Tx, call *commit.Call) (ack sharevat.Ack, err error) {
	err = boltutil.Guard(func() (err error) {
		ack, err = applyAppend(tx, call)
		return err
	})
	return ack, err
}
