package pg

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"sharevat"
	"sharevat/store/apply"
)

// maxGroup bounds how many appends share one transaction.
const maxGroup = 128

// committer group-commits the appends of one Store without a goroutine
// or a timer, as store/bolt does. The first caller to find no commit
// running becomes the leader: it takes the queued calls (itself
// included), commits them in one transaction, wakes them, and hands
// leadership to the first call that queued meanwhile, or gives it up.
// Followers only wait. mu is never held during a transaction.
type committer struct {
	st      *Store
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
	c.queue = slices.Clone(c.queue[n:])
	c.mu.Unlock()
	c.st.commitGroup(group)
	c.handOff(group, call)
}

// handOff wakes the group's followers, then passes leadership on.
func (c *committer) handOff(group []*appendCall, leader *appendCall) {
	for _, g := range group {
		if g != leader {
			close(g.wake)
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		c.leading, c.queue = false, nil
		return
	}
	c.queue[0].lead = true
	close(c.queue[0].wake)
}

// commitTimeout bounds one group's transaction: its calls' contexts are
// not the group's, so none of them may cancel it.
const commitTimeout = time.Minute

// commitGroup applies every call of group in one transaction. If the
// transaction fails, each call is retried alone, so that a failure in
// one call (or in the commit) is reported to that call only. Acks are
// set only after COMMIT returned.
func (st *Store) commitGroup(group []*appendCall) {
	ctx, cancel := context.WithTimeout(context.Background(), commitTimeout)
	defer cancel()
	start := time.Now()
	err := st.update(ctx, "append", func(tx pgx.Tx) error { return applyGroup(ctx, tx, group) })
	if err == nil && st.opts.OnCommit != nil {
		st.opts.OnCommit(len(group), groupOps(group), time.Since(start))
	}
	if err == nil || len(group) == 1 {
		setGroupErr(group, err)
		st.notices.committed(group)
		return
	}
	for _, call := range group {
		one := []*appendCall{call}
		setGroupErr(one, st.update(ctx, "append", func(tx pgx.Tx) error { return applyGroup(ctx, tx, one) }))
	}
	st.notices.committed(group)
}

// groupOps counts the ops a group carried.
func groupOps(group []*appendCall) int {
	n := 0
	for _, call := range group {
		n += len(call.req.Batch.Ops)
	}
	return n
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
