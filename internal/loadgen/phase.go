package loadgen

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sharevat/sharevat/client"
)

// benchConn is one client connection of a bench, with the share it
// redeemed (if any) and that share's appender (if asked for).
type benchConn struct {
	conn  *client.Conn
	share *client.Share
	app   *client.Appender
}

// benchDialPar is how many connections are dialed at once.
const benchDialPar = 32

// openConns dials one connection per token ("" for none): it redeems the
// token and, if withAppender, gets the share's appender.
func openConns(ctx context.Context, t *benchTarget, tokens []string, withAppender bool) ([]*benchConn, error) {
	conns := make([]*benchConn, len(tokens))
	err := forEach(ctx, len(tokens), benchDialPar, func(ctx context.Context, i int) error {
		c, err := openConn(ctx, t, tokens[i], withAppender)
		conns[i] = c
		return err
	})
	if err != nil {
		closeConns(conns)
		return nil, err
	}
	return conns, nil
}

func openConn(ctx context.Context, t *benchTarget, token string, withAppender bool) (*benchConn, error) {
	conn, err := t.dial(ctx)
	if err != nil {
		return nil, err
	}
	c := &benchConn{conn: conn}
	if token == "" {
		return c, nil
	}
	if c.share, err = conn.Redeem(ctx, token); err != nil {
		c.close()
		return nil, fmt.Errorf("bench: redeem: %w", err)
	}
	if withAppender {
		if c.app, err = c.share.Appender(ctx); err != nil {
			c.close()
			return nil, fmt.Errorf("bench: appender: %w", err)
		}
	}
	return c, nil
}

func (c *benchConn) close() {
	if c == nil {
		return
	}
	if c.app != nil {
		c.app.Release()
	}
	if c.share != nil {
		c.share.Release()
	}
	c.conn.Close()
}

// closeConns closes every connection, many at once (a close waits for
// the server's close frame).
func closeConns[T interface{ close() }](conns []T) {
	_ = forEach(context.Background(), len(conns), 256, func(_ context.Context, i int) error {
		conns[i].close()
		return nil
	})
}

// loopSpec says how a timed loop runs: workers call until d has passed,
// or count calls each if count > 0.
type loopSpec struct {
	workers int
	d       time.Duration
	count   int
}

// loopResult is what a timed loop did.
type loopResult struct {
	calls   int64
	elapsed time.Duration // from the start until the last call returned
}

// warmUp runs call for a tenth of spec.d (at most a second) without
// measuring anything, so the measured loop starts warm: worker w calls as
// w + spec.workers, so ids made from w stay unique. Count-bound loops get
// none.
func warmUp(ctx context.Context, spec loopSpec, call func(ctx context.Context, w, i int) error) error {
	if spec.count > 0 {
		return nil
	}
	warm := loopSpec{workers: spec.workers, d: min(time.Second, spec.d/10)}
	_, err := timedLoop(ctx, warm, &latHist{}, func(ctx context.Context, w, i int) error {
		return call(ctx, w+spec.workers, i)
	})
	return err
}

// timedLoop runs call on spec.workers goroutines, timing each call into
// h; call(ctx, w, i) is worker w's i-th call. The first error stops it.
func timedLoop(ctx context.Context, spec loopSpec, h *latHist, call func(ctx context.Context, w, i int) error) (loopResult, error) {
	var calls atomic.Int64
	start := time.Now()
	end := start.Add(spec.d)
	more := func(i int) bool {
		if spec.count > 0 {
			return i < spec.count
		}
		return time.Now().Before(end)
	}
	w := newWorkers(ctx)
	for wk := range spec.workers {
		w.Go(func(ctx context.Context) error {
			for i := 0; more(i); i++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				t0 := time.Now()
				if err := call(ctx, wk, i); err != nil {
					return err
				}
				h.Record(time.Since(t0))
				calls.Add(1)
			}
			return nil
		})
	}
	err := w.Wait()
	return loopResult{calls: calls.Load(), elapsed: time.Since(start)}, err
}

// pingReport is the RPC ceiling: no-op calls over the same connections.
type pingReport struct {
	Conns       int       `json:"conns"`
	Inflight    int       `json:"inflight"`
	Seconds     float64   `json:"seconds"`
	Calls       int64     `json:"calls"`
	CallsPerSec float64   `json:"calls_per_sec"`
	Latency     latencies `json:"latency"`
	CPU         cpuReport `json:"cpu"`
}

// pingPhase measures the RPC ceiling: every connection calls Ping with
// inflight calls at a time, for d.
func pingPhase(ctx context.Context, t *benchTarget, conns []*benchConn, inflight int, d time.Duration) (pingReport, error) {
	var h latHist
	spec := loopSpec{workers: len(conns) * inflight, d: d}
	ping := func(ctx context.Context, w, _ int) error {
		return conns[(w%spec.workers)/inflight].conn.Ping(ctx)
	}
	if err := warmUp(ctx, spec, ping); err != nil {
		return pingReport{}, fmt.Errorf("bench: ping: %w", err)
	}
	cpu := t.startCPU(ctx)
	res, err := timedLoop(ctx, spec, &h, ping)
	if err != nil {
		return pingReport{}, fmt.Errorf("bench: ping: %w", err)
	}
	return pingReport{
		Conns: len(conns), Inflight: inflight, Seconds: res.elapsed.Seconds(), Calls: res.calls,
		CallsPerSec: rateOf(float64(res.calls), res.elapsed), Latency: h.Summary(), CPU: cpu.stop(ctx),
	}, nil
}
