package rpc

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

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
	LimitConns          = "conns"            // server-wide connections
	LimitConnsPerIP     = "conns_per_ip"     // connections from one remote address
)

// evictWait bounds how long a charge waits for the connection the pool
// evicted to give its bytes back.
const evictWait = 2 * time.Second

// MemoryPool is a server-wide memory budget in bytes, shared by every
// connection of one or more Handlers, and by the sessions of other doors
// that Join it. When a charge would exhaust it, the member holding the
// most (if it holds more than the one asking) is evicted — an /rpc
// connection is closed with 1013 — and the charge waits for its bytes;
// so a peer that hoards memory is the one cut off, not the next peer
// that needs a little.
type MemoryPool struct {
	limit int64
	used  atomic.Int64

	mu      sync.Mutex
	members map[Member]struct{}
	freed   chan struct{} // closed and replaced whenever bytes come back
}

// Member is a holder of pool bytes that the pool may evict: an /rpc
// connection, or a session of another door (Join).
type Member interface {
	// PooledBytes is how many bytes it holds from the pool. It must not
	// wait for anything but the member's own short lock.
	PooledBytes() int64
	// Evict ends it on the pool's behalf, at once (its bytes come back
	// as it ends): it must not block, nor charge the pool.
	Evict()
}

// NewMemoryPool returns a pool of limit bytes; limit <= 0: unlimited.
func NewMemoryPool(limit int64) *MemoryPool {
	return &MemoryPool{limit: limit, members: make(map[Member]struct{}), freed: make(chan struct{})}
}

// Used returns the bytes currently counted against the pool.
func (p *MemoryPool) Used() int64 { return p.used.Load() }

// Limit returns the pool's size (<= 0: unlimited).
func (p *MemoryPool) Limit() int64 { return p.limit }

// Take counts n more bytes unless that would pass the limit: the pool
// as a budget for connections another handler serves (the Cap'n Web
// door's sessions, capnweb.Pool).
func (p *MemoryPool) Take(n int64) bool { return p.take(n) }

// TakeFor counts n more bytes for member m, making room if it must: it
// evicts the member holding the most while that holds more than m would,
// and waits for bytes to come back, at most evictWait (2 s). It must not
// be called while holding a lock that m.PooledBytes or an Evict takes.
func (p *MemoryPool) TakeFor(m Member, n int64) bool { return p.take(n) || p.makeRoom(m, n) }

// Join makes m a member the pool may evict, until leave is called.
func (p *MemoryPool) Join(m Member) (leave func()) {
	p.join(m)
	return func() { p.leave(m) }
}

// Give returns n bytes counted with Take.
func (p *MemoryPool) Give(n int64) { p.give(n) }

// take counts n more bytes unless that would pass the limit.
func (p *MemoryPool) take(n int64) bool {
	if used := p.used.Add(n); p.limit > 0 && used > p.limit {
		p.used.Add(-n)
		return false
	}
	return true
}

// give returns n bytes and wakes charges waiting for room.
func (p *MemoryPool) give(n int64) {
	if n <= 0 {
		return
	}
	p.used.Add(-n)
	p.mu.Lock()
	close(p.freed)
	p.freed = make(chan struct{})
	p.mu.Unlock()
}

func (p *MemoryPool) join(m Member) {
	p.mu.Lock()
	p.members[m] = struct{}{}
	p.mu.Unlock()
}

func (p *MemoryPool) leave(m Member) {
	p.mu.Lock()
	delete(p.members, m)
	p.mu.Unlock()
}

// makeRoom takes n bytes for b once the pool has room, evicting the
// member that holds the most while it holds more than b would; it gives
// up after evictWait, or at once when b itself holds the most.
func (p *MemoryPool) makeRoom(b Member, n int64) bool {
	deadline := time.NewTimer(evictWait)
	defer deadline.Stop()
	for {
		mine := b.PooledBytes()
		p.mu.Lock()
		freed := p.freed
		victim := p.largest(mine + n)
		p.mu.Unlock()
		if victim == nil {
			return p.take(n)
		}
		victim.Evict()
		select {
		case <-freed:
		case <-deadline.C:
			return p.take(n)
		}
		if p.take(n) {
			return true
		}
	}
}

// largest returns the member holding the most, if it holds more than
// than; p.mu is held.
func (p *MemoryPool) largest(than int64) Member {
	var top Member
	most := than
	for m := range p.members {
		if n := m.PooledBytes(); n > most {
			top, most = m, n
		}
	}
	return top
}

// connBudget counts the bytes one connection holds, against its own limit
// and its pool's. Charges that would pass either limit are refused and
// leave the counts unchanged. Once closed (the connection ended and gave
// everything back) it refuses charges and ignores releases.
type connBudget struct {
	limit   int64 // <= 0: unlimited
	pool    *MemoryPool
	onEvict func() // closes the connection when the pool evicts it

	mu      sync.Mutex
	used    int64 // counted against limit
	pooled  int64 // of which taken from the pool
	closed  bool
	evicted bool
}

func newConnBudget(limit int64, pool *MemoryPool, onEvict func()) *connBudget {
	b := &connBudget{limit: limit, pool: pool, onEvict: onEvict}
	if pool != nil {
		pool.join(b)
	}
	return b
}

// budgetError is a limit a peer passed (a refused charge or a protocol
// limit): the limit's name, the close code and the reason to send. The
// name is empty when the connection was already closing.
type budgetError struct {
	limit  string
	code   int
	reason string
}

func (e *budgetError) Error() string { return e.reason }

var (
	errBudgetClosed = &budgetError{"", websocket.CloseNormalClosure, "sharevat: connection closed"}
	errServerMemory = &budgetError{LimitServerMemory, websocket.CloseTryAgainLater,
		"sharevat: server memory budget exhausted; try again later"}
	errEvicted = &budgetError{LimitServerMemory, websocket.CloseTryAgainLater,
		"sharevat: server memory budget exhausted and this connection holds the most; try again later"}
)

// charge counts n bytes against the connection's limit and the pool.
func (b *connBudget) charge(n int64) *budgetError {
	if n <= 0 {
		return nil
	}
	if err := b.reserve(n); err != nil {
		return err
	}
	return b.takePooled(n)
}

// takePooled takes n bytes, already reserved, from the pool.
func (b *connBudget) takePooled(n int64) *budgetError {
	if b.pool == nil {
		return nil
	}
	if !b.pool.take(n) && !b.pool.makeRoom(b, n) {
		b.unreserve(n)
		return errServerMemory
	}
	b.mu.Lock()
	closed := b.closed
	if !closed {
		b.pooled += n
	}
	b.mu.Unlock()
	if closed { // the pool's lock is never taken under b.mu: largest takes them the other way
		b.pool.give(n)
		return errBudgetClosed
	}
	return nil
}

// reserve counts n against the connection's own limit.
func (b *connBudget) reserve(n int64) *budgetError {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return errBudgetClosed
	case b.limit > 0 && b.used+n > b.limit:
		return b.exceeded()
	}
	b.used += n
	return nil
}

// exceeded is the error of a charge over the connection's limit.
func (b *connBudget) exceeded() *budgetError {
	return &budgetError{LimitConnMemory, websocket.ClosePolicyViolation,
		fmt.Sprintf("sharevat: connection memory budget of %d bytes exceeded", b.limit)}
}

func (b *connBudget) unreserve(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.closed {
		b.used -= n
	}
}

// release returns n charged bytes.
func (b *connBudget) release(n int64) {
	if n <= 0 {
		return
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.used -= n
	if b.pool != nil {
		b.pooled -= n
	}
	b.mu.Unlock()
	if b.pool != nil {
		b.pool.give(n)
	}
}

// close returns everything still counted, when the connection ends.
func (b *connBudget) close() {
	b.mu.Lock()
	pooled := b.pooled
	b.used, b.pooled, b.closed = 0, 0, true
	b.mu.Unlock()
	if b.pool != nil {
		b.pool.leave(b)
		b.pool.give(pooled)
	}
}

// PooledBytes is what the connection holds from its pool.
func (b *connBudget) PooledBytes() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pooled
}

// Evict closes the connection, once, on the pool's behalf.
func (b *connBudget) Evict() {
	b.mu.Lock()
	first := !b.evicted && !b.closed
	b.evicted = true
	b.mu.Unlock()
	if first && b.onEvict != nil {
		go b.onEvict()
	}
}
