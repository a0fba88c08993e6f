package loadgen

import (
	"context"
	"math/bits"
	"sync"
	"time"
)

// latHist is a latency histogram with buckets 1/128 wide relative to
// their value (HDR-style: exact below 256 ns, then 128 buckets per power
// of two), so quantiles are within 1%; recording allocates nothing. Safe
// for concurrent use.
type latHist struct {
	mu     sync.Mutex
	counts []uint64
	n      uint64
	sum    time.Duration
	max    time.Duration
}

const histSub = 128 // buckets per power of two

func histBucket(v uint64) int {
	if v < 2*histSub {
		return int(v)
	}
	shift := bits.Len64(v) - 8
	return shift*histSub + int(v>>shift)
}

// histValue is the middle of bucket b.
func histValue(b int) time.Duration {
	if b < 2*histSub {
		return time.Duration(b)
	}
	shift := b/histSub - 1
	lo := uint64(b%histSub+histSub) << shift
	return time.Duration(lo + (uint64(1)<<shift)/2)
}

// Record adds one latency.
func (h *latHist) Record(d time.Duration) {
	d = max(d, 0)
	b := histBucket(uint64(d))
	h.mu.Lock()
	defer h.mu.Unlock()
	if b >= len(h.counts) {
		h.counts = append(h.counts, make([]uint64, b+1-len(h.counts)+histSub)...)
	}
	h.counts[b]++
	h.n++
	h.sum += d
	h.max = max(h.max, d)
}

// Count returns how many latencies were recorded.
func (h *latHist) Count() uint64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.n
}

// Quantile returns the q-quantile (0 ≤ q ≤ 1); the max for q = 1.
func (h *latHist) Quantile(q float64) time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.n == 0 {
		return 0
	}
	if q >= 1 {
		return h.max
	}
	rank := uint64(q*float64(h.n)) + 1
	var seen uint64
	for b, c := range h.counts {
		seen += c
		if seen >= rank {
			return min(histValue(b), h.max)
		}
	}
	return h.max
}

// Take returns the histogram so far and starts a fresh one.
func (h *latHist) Take() *latHist {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := &latHist{counts: h.counts, n: h.n, sum: h.sum, max: h.max}
	h.counts, h.n, h.sum, h.max = nil, 0, 0, 0
	return old
}

// Merge adds o's latencies to h.
func (h *latHist) Merge(o *latHist) {
	o.mu.Lock()
	counts, n, sum, mx := append([]uint64(nil), o.counts...), o.n, o.sum, o.max
	o.mu.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(counts) > len(h.counts) {
		h.counts = append(h.counts, make([]uint64, len(counts)-len(h.counts))...)
	}
	for i, c := range counts {
		h.counts[i] += c
	}
	h.n += n
	h.sum += sum
	h.max = max(h.max, mx)
}

// latencies is a histogram's summary, in milliseconds.
type latencies struct {
	Count  uint64  `json:"count"`
	MeanMs float64 `json:"mean_ms"`
	P50Ms  float64 `json:"p50_ms"`
	P95Ms  float64 `json:"p95_ms"`
	P99Ms  float64 `json:"p99_ms"`
	MaxMs  float64 `json:"max_ms"`
}

func (h *latHist) Summary() latencies {
	l := latencies{Count: h.Count(), P50Ms: ms(h.Quantile(0.50)), P95Ms: ms(h.Quantile(0.95)),
		P99Ms: ms(h.Quantile(0.99)), MaxMs: ms(h.Quantile(1))}
	h.mu.Lock()
	if h.n > 0 {
		l.MeanMs = ms(h.sum / time.Duration(h.n))
	}
	h.mu.Unlock()
	return l
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// workers runs functions on goroutines and keeps the first error; the
// first error also cancels the context they were given.
type workers struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	err    error
}

func newWorkers(ctx context.Context) *workers {
	w := &workers{}
	w.ctx, w.cancel = context.WithCancel(ctx)
	return w
}

// Go runs fn(ctx) on a new goroutine.
func (w *workers) Go(fn func(ctx context.Context) error) {
	w.wg.Go(func() {
		if err := fn(w.ctx); err != nil {
			w.once.Do(func() { w.err = err; w.cancel() })
		}
	})
}

// Wait waits for every function and returns the first error.
func (w *workers) Wait() error {
	w.wg.Wait()
	w.cancel()
	return w.err
}

// forEach runs fn(i) for i in [0, n) on at most par goroutines and
// returns the first error (stopping the others' next starts).
func forEach(ctx context.Context, n, par int, fn func(ctx context.Context, i int) error) error {
	w := newWorkers(ctx)
	next := make(chan int)
	for range min(n, par) {
		w.Go(func(ctx context.Context) error {
			for i := range next {
				if err := fn(ctx, i); err != nil {
					return err
				}
			}
			return nil
		})
	}
	func() {
		defer close(next)
		for i := range n {
			select {
			case next <- i:
			case <-w.ctx.Done():
				return
			}
		}
	}()
	return w.Wait()
}

// rateOf is count per second of d.
func rateOf(count float64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return count / d.Seconds()
}

// ratio is a / b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// settleTime is how long settle waits at most.
const settleTime = 600 * time.Millisecond

// settle waits out go-capnp's ~250 ms hold on finished calls (docs/design.md
// §10), so one phase's leftovers do not weigh on the next; phases shorter
// than that wait only as long as they last.
func settle(ctx context.Context, phase time.Duration) {
	t := time.NewTimer(min(settleTime, phase))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
