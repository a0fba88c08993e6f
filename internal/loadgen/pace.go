package loadgen

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// pacer hands out permits at a steady rate, from a ticker (no busy
// loop): a token bucket of burst permits, filled every pacerTick. Permits
// nobody takes while the bucket is full are dropped and counted, so a
// consumer that falls behind cannot catch up in a burst. C is closed once
// d has passed or ctx ended.
type pacer struct {
	C       <-chan struct{}
	issued  atomic.Int64
	dropped atomic.Int64
	wg      sync.WaitGroup
}

const pacerTick = 5 * time.Millisecond

// startPacer starts handing out rate permits per second for d.
func startPacer(ctx context.Context, rate int, d time.Duration) *pacer {
	ch := make(chan struct{}, max(rate/10, 1)) // 100 ms of permits
	p := &pacer{C: ch}
	p.wg.Go(func() { p.run(ctx, ch, rate, d) })
	return p
}

func (p *pacer) run(ctx context.Context, ch chan<- struct{}, rate int, d time.Duration) {
	defer close(ch)
	tick := time.NewTicker(pacerTick)
	defer tick.Stop()
	start := time.Now()
	var due int64
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			el := min(now.Sub(start), d)
			for due = int64(float64(rate) * el.Seconds()); p.issued.Load() < due; p.issued.Add(1) {
				select {
				case ch <- struct{}{}:
				default:
					p.dropped.Add(1)
				}
			}
			if el >= d {
				return
			}
		}
	}
}

// Wait waits for the pacer's goroutine to end (C closed).
func (p *pacer) Wait() { p.wg.Wait() }

// takeUpTo takes up to n more permits that are ready now, without
// waiting, and returns how many it took.
func (p *pacer) takeUpTo(n int) int {
	for took := 0; took < n; took++ {
		select {
		case _, ok := <-p.C:
			if !ok {
				return took
			}
		default:
			return took
		}
	}
	return n
}
