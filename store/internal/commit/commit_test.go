package commit

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// newTestCall is a call whose batch holds n ops, unprepared: the
// committer never looks at Prep.
func newTestCall(share string, n int) *Call {
	b := &sharevat.Batch{Ops: make([]sharevat.Op, n)}
	return &Call{Req: sharevat.AppendRequest{Share: sharevat.ShareID(share), Batch: b}, wake: make(chan struct{})}
}

// queued waits until c holds n queued calls.
func queued(c *Committer, n int) {
	for {
		c.mu.Lock()
		got := len(c.queue)
		c.mu.Unlock()
		if got >= n {
			return
		}
		runtime.Gosched()
	}
}

// TestDoAnswersEveryCallOnce: 300 concurrent calls each get the answer
// of exactly one group, no group is larger than MaxGroup, and never do
// two leaders commit at once.
func TestDoAnswersEveryCallOnce(t *testing.T) {
	var leaders, groups atomic.Int32
	seen := map[*Call]int{}
	var mu sync.Mutex
	c := New(func(group []*Call) func() {
		require.Equal(t, int32(1), leaders.Add(1), "two leaders at once")
		defer leaders.Add(-1)
		groups.Add(1)
		assert.LessOrEqual(t, len(group), MaxGroup)
		mu.Lock()
		defer mu.Unlock()
		for _, call := range group {
			seen[call]++
			call.Ack = sharevat.Ack{Applied: len(call.Req.Batch.Ops)}
		}
		return nil
	})
	const n = 300
	calls := make([]*Call, n)
	var wg sync.WaitGroup
	for i := range calls {
		calls[i] = newTestCall("s", i%7+1)
		wg.Go(func() { c.Do(calls[i]) })
	}
	wg.Wait()
	for i, call := range calls {
		assert.Equal(t, 1, seen[call], "call %d committed once", i)
		assert.Equal(t, i%7+1, call.Ack.Applied, "call %d has its own answer", i)
	}
	assert.False(t, c.leading, "leadership given up at the end")
	t.Logf("%d calls in %d groups", n, groups.Load())
}

// TestThenRunsAfterLeadershipPasses: a Leader that returns a then lets
// the next group lead before then runs (store/bolt decides the next
// group while this one waits for its fdatasync). The first group's then
// waits for the second group's Leader: run before leadership passed, it
// would wait forever.
func TestThenRunsAfterLeadershipPasses(t *testing.T) {
	first, second := newTestCall("a", 1), newTestCall("b", 1)
	secondLed := make(chan struct{})
	var c *Committer
	var order []string
	c = New(func(group []*Call) func() {
		if group[0] == second {
			order = append(order, "second leads")
			close(secondLed)
			return nil
		}
		go c.Do(second)
		queued(c, 1)
		return func() {
			<-secondLed
			order = append(order, "first's then")
			group[0].Ack.Head = 1
		}
	})
	c.Do(first)
	<-secondLed
	assert.Equal(t, []string{"second leads", "first's then"}, order)
	assert.Equal(t, sharevat.Cursor(1), first.Ack.Head)
}

// TestFollowersWaitForThen: the followers of a pipelined group return
// only after its then has set their answers. Calls l and f queue while
// x's group commits, so l leads a group of both.
func TestFollowersWaitForThen(t *testing.T) {
	x, l, f := newTestCall("x", 1), newTestCall("l", 1), newTestCall("f", 1)
	inX, release := make(chan struct{}), make(chan struct{})
	c := New(func(group []*Call) func() {
		if group[0] == x {
			close(inX)
			<-release
			return nil
		}
		assert.Equal(t, []*Call{l, f}, group)
		return func() {
			for i, call := range group {
				call.Ack.Head = sharevat.Cursor(i + 1)
			}
		}
	})
	var wg sync.WaitGroup
	wg.Go(func() { c.Do(x) })
	<-inX
	wg.Go(func() { c.Do(l) })
	queued(c, 1)
	var fHead sharevat.Cursor
	wg.Go(func() { c.Do(f); fHead = f.Ack.Head })
	queued(c, 2)
	close(release)
	wg.Wait()
	assert.Equal(t, sharevat.Cursor(1), l.Ack.Head)
	assert.Equal(t, sharevat.Cursor(2), fHead, "the follower returned with its answer")
}

// TestSetErrAndOps: SetErr replaces every answer of a failed group (and
// nothing for a nil error); Ops counts the group's ops.
func TestSetErrAndOps(t *testing.T) {
	group := []*Call{newTestCall("a", 2), newTestCall("b", 3)}
	group[0].Ack.Applied = 2
	SetErr(group, nil)
	assert.Equal(t, 2, group[0].Ack.Applied)
	boom := sharevat.Errorf(sharevat.EUnavailable, "boom")
	SetErr(group, boom)
	for _, call := range group {
		assert.Equal(t, sharevat.Ack{}, call.Ack)
		assert.ErrorIs(t, call.Err, boom)
	}
	assert.Equal(t, 5, Ops(group))
	assert.Equal(t, 0, Ops([]*Call{{}}), "a call without a batch carries no ops")
}
