package vat

import (
	"context"
	"sync"
)

// byteGate is a counting semaphore in bytes: the room one connection's
// subscriptions share for pushes read and not yet answered by the
// subscriber. Waiters are woken together on every release and race for
// the room; no order is promised.
type byteGate struct {
	size int64

	mu    sync.Mutex
	used  int64
	freed chan struct{} // closed and replaced by every release
}

func newByteGate(size int64) *byteGate {
	return &byteGate{size: size, freed: make(chan struct{})}
}

// acquire takes n bytes, or the whole gate if n is larger, waiting until
// they are free or ctx ends; it returns what it took, to be released.
func (g *byteGate) acquire(ctx context.Context, n int64) (int64, error) {
	n = min(n, g.size)
	for {
		g.mu.Lock()
		if g.used+n <= g.size {
			g.used += n
			g.mu.Unlock()
			return n, nil
		}
		freed := g.freed
		g.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			return 0, context.Cause(ctx)
		}
	}
}

// release gives back n bytes taken by acquire.
func (g *byteGate) release(n int64) {
	if n <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.used -= n
	close(g.freed)
	g.freed = make(chan struct{})
}
