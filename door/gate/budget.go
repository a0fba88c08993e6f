package gate

import "sync"

// Budget is the server's one memory budget (rpc.MemoryPool): every door
// and every /rpc connection draw from it.
type Budget interface {
	// Take counts n more bytes unless that would pass the limit.
	Take(n int64) bool
	// Give returns n bytes counted with Take.
	Give(n int64)
}

// charges holds what each caller holds of the budget, so that no caller
// holds more than its share.
type charges struct {
	budget Budget // nil: nothing is counted
	share  int64  // most one caller may hold; <= 0: no bound but the budget's

	mu     sync.Mutex
	caller map[string]int64
}

func newCharges(b Budget, share int64) *charges {
	return &charges{budget: b, share: share, caller: map[string]int64{}}
}

// take charges n bytes to caller; false when the caller's share or the
// budget cannot hold them. A caller that holds nothing may take more
// than its share (the budget permitting): one request of the largest
// size always gets through once the caller's others have ended, so a
// share smaller than a request is a bound on concurrency, not a ban.
func (c *charges) take(caller string, n int64) bool {
	if c.budget == nil || n <= 0 {
		return true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	held := c.caller[caller]
	if c.share > 0 && held > 0 && held+n > c.share {
		return false
	}
	if !c.budget.Take(n) {
		return false
	}
	c.caller[caller] = held + n
	return true
}

// give returns n bytes take charged to caller.
func (c *charges) give(caller string, n int64) {
	if c.budget == nil || n <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.caller[caller] -= n; c.caller[caller] <= 0 {
		delete(c.caller, caller)
	}
	c.budget.Give(n)
}
