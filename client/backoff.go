package client

import (
	"context"
	"math/rand/v2"
	"time"
)

// backoff is the wait before retry n (from 0): lo·2^n, capped at hi.
func backoff(lo, hi time.Duration, n int) time.Duration {
	d := lo << min(n, 16)
	if d > hi || d <= 0 {
		return hi
	}
	return d
}

// sleepJittered waits jittered(d), or until ctx ends.
func sleepJittered(ctx context.Context, d time.Duration) error {
	return sleep(ctx, jittered(d))
}

// jittered is a random time between d/2 and d: full jitter in the upper
// half, so that clients cut off together do not retry together.
func jittered(d time.Duration) time.Duration {
	return d/2 + rand.N(d/2+1)
}

// sleep waits d, or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
