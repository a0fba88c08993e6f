package bolt

import (
	"slices"
	"sync"
	"time"

	bbolt "go.etcd.io/bbolt"

	"sharevat"
	"sharevat/store/apply"
	"sharevat/store/internal/boltutil"
)

// maxGroup bounds how many appends share one transaction.
const maxGroup = 128

// committer group-commits appends without a goroutine or a timer. The
// first caller to find no commit running becomes the leader: it takes the
// queued calls (itself included), commits them in one transaction, wakes
// them, and hands leadership to the first call that queued meanwhile, or
// gives it up. With the write-ahead log the leader hands leadership on
// as soon as its group is written, before its fdatasync (walpipe.go). Followers only wait. mu is never held during a transaction.
type committer struct {
	db      *DB
	mu      sync.Mutex
	queue   []*appendCall
	leading bool
}

// appendCall is one Append waiting for its group.
type appendCall struct {
	req  sharevat.AppendRequest
	prep *apply.Batch // req.Batch, prepared before the group
	ack  sharevat.Ack
	err  error
	lead bool          // set, before wake closes, when the call must lead
	wake chan struct{} // closed when the call is done or must lead
}

// do runs call in some group and returns when its result is set.
func (c *committer) do(call *appendCall) {
	c.mu.Lock()
	c.queue = append(c.queue, call)
	if c.leading {
		c.mu.Unlock()
		<-call.wake
		if !call.lead {
			return
		}
		c.mu.Lock()
	}
	c.leading = true
	n := min(len(c.queue), maxGroup)
	group := c.queue[:n:n]
	c.queue = slices.Clone(c.queue[n:]) // drop the group's references
	c.mu.Unlock()
	if c.db.wal != nil {
		// Pipelined (walpipe.go): the next leader decides its group
		// while this one waits for its fdatasync.
		start := time.Now()
		upTo, ok := c.db.walDecide(group)
		c.passLead()
		if ok {
			c.db.walFinish(group, upTo, start)
		}
		wakeFollowers(group, call)
		return
	}
	c.db.commitGroup(group)
	wakeFollowers(group, call)
	c.passLead()
}

// wakeFollowers wakes the group's calls but its leader.
func wakeFollowers(group []*appendCall, leader *appendCall) {
	for _, g := range group {
		if g != leader {
			close(g.wake)
		}
	}
}

// passLead passes leadership to the first queued call, or gives it up.
func (c *committer) passLead() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		c.leading, c.queue = false, nil
		return
	}
	c.queue[0].lead = true
	close(c.queue[0].wake)
}

// commitGroup applies every call of group in one transaction. If the
// transaction fails, each call is retried alone, so that a store failure
// in one call (or in the commit) is reported to that call only.
func (db *DB) commitGroup(group []*appendCall) {
	start := time.Now()
	err := boltutil.Update(db.bdb, func(tx *bbolt.Tx) error { return applyGroup(tx, group) })
	if err == nil && db.opts.OnCommit != nil {
		db.opts.OnCommit(len(group), groupOps(group), time.Since(start))
	}
	if err == nil || len(group) == 1 {
		setGroupErr(group, err)
		return
	}
	for _, call := range group {
		err := boltutil.Update(db.bdb, func(tx *bbolt.Tx) error { return applyGroup(tx, []*appendCall{call}) })
		setGroupErr([]*appendCall{call}, err)
	}
}

// groupOps counts the ops a group carried.
func groupOps(group []*appendCall) int {
	n := 0
	for _, call := range group {
		if call.req.Batch != nil {
			n += len(call.req.Batch.Ops)
		}
	}
	return n
}

// applyGroup applies each call in tx, stopping at the first store
// failure. Domain errors (an unknown share) are the call's own result:
// they are found before the call writes anything.
func applyGroup(tx *bbolt.Tx, group []*appendCall) error {
	for _, call := range group {
		call.ack, call.err = safeApply(tx, call)
		if call.err != nil && sharevat.ErrorCode(call.err) == sharevat.EInternal {
			return call.err
		}
	}
	return nil
}

// setGroupErr records a failed transaction on every call of the group.
func setGroupErr(group []*appendCall, err error) {
	if err == nil {
		return
	}
	for _, call := range group {
		call.ack, call.err = sharevat.Ack{}, err
	}
}

// safeApply is applyAppend that turns a panic (a damaged page, or a
// bug) into an error that aborts the transaction (boltutil.Guard), so
// that it cannot leave the followers of a group waiting forever.
func safeApply(tx *bbolt.Tx, call *appendCall) (ack sharevat.Ack, err error) {
	err = boltutil.Guard(func() (err error) {
		ack, err = applyAppend(tx, call)
		return err
	})
	return ack, err
}
