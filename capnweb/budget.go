package capnweb

import (
	"errors"
	"sync"
)

// Pool is a memory budget shared by many sessions (and, in sharevat, the
// /rpc connections: rpc.MemoryPool). Take counts n more bytes unless that
// would pass its limit; Give returns them.
type Pool interface {
	Take(n int64) bool
	Give(n int64)
}

// EvictingPool is a Pool that can make room by ending whoever holds the
// most (rpc.MemoryPool, through an adapter for these types). A session
// (or batch) Joins it for its life; TakeFor takes n bytes for member m,
// evicting the member holding the most while that holds more than m
// would, and waiting a bounded time for its bytes to come back. The pool
// takes its own lock before a member's (PooledBytes), never the other
// way: a member gives bytes back outside its lock.
type EvictingPool interface {
	Pool
	Join(m PoolMember) (leave func())
	TakeFor(m PoolMember, n int64) bool
}

// PoolMember is what an EvictingPool may evict.
type PoolMember interface {
	// PooledBytes is how many bytes it holds from the pool.
	PooledBytes() int64
	// Evict ends it on the pool's behalf, without blocking; its bytes
	// come back as it ends.
	Evict()
}

// ErrMemory is the error of a Charge over a session's budget.
var ErrMemory = errors.New("capnweb: session memory budget exceeded")

// errEvicted is why a session the pool evicted ended (its abort).
var errEvicted = errors.New("capnweb: server memory budget exhausted and this session holds the most; try again later")

// budget is a session's Meter; over is called (outside its lock) when a
// Charge does not fit, evict when the pool evicts the session.
type budget struct {
	mu      sync.Mutex
	used    int64 // counted against limit, and taken from pool
	waiting int64 // counted against limit, waiting for pool room
	limit   int64
	pool    Pool // nil: none
	closed  bool // the session is over: its bytes went back to pool
	evicted bool // the pool evicted it: charges fail (evict ends it)
	over    func()
	evict   func()
	leave   func() // leaves an EvictingPool
}

var (
	_ Meter      = (*budget)(nil)
	_ PoolMember = (*budget)(nil)
)

// join makes the session a member its EvictingPool may evict (by
// calling evict), until close.
func (b *budget) join(evict func()) {
	ep, ok := b.pool.(EvictingPool)
	if !ok {
		return
	}
	b.mu.Lock()
	b.evict = evict
	b.mu.Unlock()
	leave := ep.Join(b)
	b.mu.Lock()
	if b.closed { // closed meanwhile: leave at once
		b.mu.Unlock()
		leave()
		return
	}
	b.leave = leave
	b.mu.Unlock()
}

// Charge takes n bytes of the budget and of the pool. When the pool has
// no room and can make some (an EvictingPool), it waits for it without
// holding the budget's lock; a budget that has not joined (a batch) may
// so evict sessions that hold more, and is not evicted itself.
func (b *budget) Charge(n int64) error {
	b.mu.Lock()
	if b.evicted {
		b.mu.Unlock()
		return ErrMemory // evict is ending it, with its own reason
	}
	if n < 0 || b.closed || b.used+b.waiting+n > b.limit {
		return b.refuse()
	}
	if b.pool == nil || b.pool.Take(n) {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	ep, ok := b.pool.(EvictingPool)
	if !ok {
		return b.refuse()
	}
	b.waiting += n
	b.mu.Unlock()
	took := ep.TakeFor(b, n)
	b.mu.Lock()
	b.waiting -= n
	if took && !b.closed {
		b.used += n
		b.mu.Unlock()
		return nil
	}
	if took {
		b.pool.Give(n) // closed while waiting: nothing is kept
	}
	return b.refuse()
}

// refuse unlocks b, reports the charge over budget and fails it.
func (b *budget) refuse() error {
	b.mu.Unlock()
	if b.over != nil {
		b.over()
	}
	return ErrMemory
}

// Release gives back n bytes.
func (b *budget) Release(n int64) {
	b.mu.Lock()
	n = min(n, b.used)
	if n <= 0 {
		b.mu.Unlock()
		return
	}
	b.used -= n
	give := b.pool != nil && !b.closed
	b.mu.Unlock()
	if give {
		b.pool.Give(n)
	}
}

// close gives the pool back every byte the session still holds; later
// Releases are only counted, later Charges fail.
func (b *budget) close() {
	b.mu.Lock()
	give := b.used
	if b.closed || b.pool == nil {
		give = 0
	}
	leave := b.leave
	b.closed, b.leave = true, nil
	b.mu.Unlock()
	if leave != nil {
		leave()
	}
	if give > 0 {
		b.pool.Give(give)
	}
}

// PooledBytes is what the session holds from the pool.
func (b *budget) PooledBytes() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// Evict ends the session on the pool's behalf: its charges fail from
// now on, and evict runs on another goroutine (it must not block the
// charge that chose it). The bytes come back as the session ends.
func (b *budget) Evict() {
	b.mu.Lock()
	first := !b.evicted && !b.closed
	b.evicted = true
	evict := b.evict
	b.mu.Unlock()
	if first && evict != nil {
		go evict()
	}
}
