package opencode

import "net/http"

// errBudgetFull is state refused because the memory budget cannot hold
// it.
var errBudgetFull = fail(http.StatusServiceUnavailable, "unavailable: the server's memory budget is full; retry later")

// holding is the bytes one request holds in memory beyond its body (a
// share's state read for an answer or for ordering a sync), counted in
// the memory budget from when they are read until release.
type holding struct {
	b Budget // nil: nothing is counted
	n int64
}

// hold starts the count of one request.
func (d *Door) hold() *holding { return &holding{b: d.o.Budget} }

// take counts n more bytes, or refuses 503 when the budget cannot.
func (h *holding) take(n int64) error {
	if h.b == nil || n <= 0 {
		return nil
	}
	if !h.b.Take(n) {
		return errBudgetFull
	}
	h.n += n
	return nil
}

// upTo counts up to total bytes held in all.
func (h *holding) upTo(total int64) error { return h.take(total - h.n) }

// release gives back everything counted.
func (h *holding) release() {
	if h.b != nil && h.n > 0 {
		h.b.Give(h.n)
		h.n = 0
	}
}
