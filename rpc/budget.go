package rpc

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gorilla/websocket"
)

// Names of the limits that close a connection, as passed to OnLimit and
// reported in metrics.
const (
	LimitConnMemory     = "conn_memory"      // the connection's memory budget
	LimitServerMemory   = "server_memory"    // the server-wide memory pool
	LimitInflightCalls  = "calls_in_flight"  // calls and bootstraps not yet answered
	LimitCapsPerMessage = "caps_per_message" // capability descriptors in one message
	LimitAssembleTime   = "assemble_timeout" // one message's frames took too long
	LimitMessageSize    = "message_size"     // one message over the read limit
	LimitPipeline       = "pipeline_target"  // a call pipelined on a field holding no capability
	LimitConns          = "conns"            // server-wide connections
	LimitConnsPerIP     = "conns_per_ip"     // connections from one remote address
)

// MemoryPool is a server-wide memory budget in bytes, shared by every
// connection of one or more Handlers.
type MemoryPool struct {
	limit int64
	used  atomic.Int64
}

// NewMemoryPool returns a pool of limit bytes; limit <= 0: unlimited.
func NewMemoryPool(limit int64) *MemoryPool { return &MemoryPool{limit: limit} }

// Used returns the bytes currently counted against the pool.
func (p *MemoryPool) Used() int64 { return p.used.Load() }

// Limit returns the pool's size (<= 0: unlimited).
func (p *MemoryPool) Limit() int64 { return p.limit }

// connBudget counts the bytes one connection holds, against its own limit
// and its pool's. Charges that would pass either limit are refused and
// leave the counts unchanged. Once closed (the connection ended and gave
// everything back) it refuses charges and ignores releases.
type connBudget struct {
	limit int64 // <= 0: unlimited
	pool  *MemoryPool

	mu     sync.Mutex
	used   int64
	closed bool
}

// budgetError is a refused charge: the limit's name, the close code and
// reason to send.
type budgetError struct {
	limit  string
	code   int
	reason string
}

func (e *budgetError) Error() string { return e.reason }

var errBudgetClosed = &budgetError{LimitConnMemory, websocket.CloseNormalClosure, "sharevat: connection closed"}

func (b *connBudget) charge(n int64) *budgetError {
	if n <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return errBudgetClosed
	case b.limit > 0 && b.used+n > b.limit:
		return &budgetError{LimitConnMemory, websocket.ClosePolicyViolation,
			fmt.Sprintf("sharevat: connection memory budget of %d bytes exceeded", b.limit)}
	case b.pool != nil && !b.pool.take(n):
		return &budgetError{LimitServerMemory, websocket.CloseTryAgainLater,
			"sharevat: server memory budget exhausted; try again later"}
	}
	b.used += n
	return nil
}

func (b *connBudget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.used -= n
	if b.pool != nil {
		b.pool.used.Add(-n)
	}
}

// close returns everything still counted, when the connection ends.
func (b *connBudget) close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pool != nil {
		b.pool.used.Add(-b.used)
	}
	b.used, b.closed = 0, true
}

// take counts n more bytes against the pool unless that would pass its
// limit.
func (p *MemoryPool) take(n int64) bool {
	if used := p.used.Add(n); p.limit > 0 && used > p.limit {
		p.used.Add(-n)
		return false
	}
	return true
}
