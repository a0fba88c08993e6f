// Package commit is the group committer both stores run their appends
// through (docs/design.md §8): concurrent appends share one transaction,
// without a goroutine or a timer. The first caller to find no commit
// running becomes the leader: it takes the queued calls (itself
// included), has its store commit them as one group, wakes them, and
// hands leadership to the first call that queued meanwhile, or gives it
// up. Followers only wait. The committer's lock is never held while a
// group commits.
//
// A store gives the committer its Leader: the I/O of one group (store/bolt
// writes it to its write-ahead log or its data file, store/pg to its
// database). A Leader that returns a Then lets the next group start
// before this one is finished: store/bolt's write-ahead log decides the
// next group while this one waits for its fdatasync.
//
// It imports the standard library, the root package and store/apply.
package commit

import (
	"slices"
	"sync"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// MaxGroup bounds how many appends share one transaction.
const MaxGroup = 128

// Call is one Append waiting for its group. The store's Leader sets Ack
// and Err of every call of its group.
type Call struct {
	Req  sharevat.AppendRequest
	Prep *apply.Batch // Req.Batch, prepared before the group
	Ack  sharevat.Ack
	Err  error
	lead bool          // set, before wake closes, when the call must lead
	wake chan struct{} // closed when the call is done or must lead
}

// NewCall prepares req's batch (apply.Prepare) on the caller's
// goroutine, outside the group, and returns its call.
func NewCall(req sharevat.AppendRequest) *Call {
	return &Call{Req: req, Prep: apply.Prepare(req.Batch, req.Limits, req.Privacy), wake: make(chan struct{})}
}

// Leader commits one group (every call gets its Ack or Err) and returns
// nil; or it does the group's first, serial step and returns the rest as
// then, which runs after leadership has passed on.
type Leader func(group []*Call) (then func())

// Committer group-commits the calls given to Do with its Leader.
type Committer struct {
	leader  Leader
	mu      sync.Mutex
	queue   []*Call
	leading bool
}

// New returns a committer that commits each group with leader.
func New(leader Leader) *Committer { return &Committer{leader: leader} }

// Do runs call in some group and returns when its result is set.
func (c *Committer) Do(call *Call) {
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
	n := min(len(c.queue), MaxGroup)
	group := c.queue[:n:n]
	c.queue = slices.Clone(c.queue[n:]) // drop the group's references
	c.mu.Unlock()
	then := c.leader(group)
	if then == nil {
		wakeFollowers(group, call)
		c.passLead()
		return
	}
	c.passLead()
	then()
	wakeFollowers(group, call)
}

// wakeFollowers wakes the group's calls but its leader.
func wakeFollowers(group []*Call, leader *Call) {
	for _, g := range group {
		if g != leader {
			close(g.wake)
		}
	}
}

// passLead passes leadership to the first queued call, or gives it up.
func (c *Committer) passLead() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.queue) == 0 {
		c.leading, c.queue = false, nil
		return
	}
	c.queue[0].lead = true
	close(c.queue[0].wake)
}

// Ops counts the ops a group carried.
func Ops(group []*Call) int {
	n := 0
	for _, call := range group {
		if call.Req.Batch != nil {
			n += len(call.Req.Batch.Ops)
		}
	}
	return n
}

// SetErr records a failed transaction (err not nil) on every call of
// the group.
func SetErr(group []*Call, err error) {
	if err == nil {
		return
	}
	for _, call := range group {
		call.Ack, call.Err = sharevat.Ack{}, err
	}
}
