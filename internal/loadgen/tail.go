package loadgen

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// tailReport is a tail run: one writer, M subscribers, and the time from
// the writer building an op to each subscriber receiving it.
type tailReport struct {
	Subscribers int            `json:"subscribers"`
	Rate        int            `json:"rate_target"`
	Seconds     float64        `json:"seconds"`
	Sent        int64          `json:"ops_sent"`
	Batches     int64          `json:"batches_sent"`
	SentPerSec  float64        `json:"ops_per_sec"`
	Delivered   int64          `json:"deliveries"`
	Delivery    latencies      `json:"delivery_latency"`
	Writer      latencies      `json:"writer_append_latency"`
	DrainMs     float64        `json:"drain_ms"` // from the writer's last ack to every subscriber having every op
	Violations  tailViolations `json:"violations"`
	Server      serverReport   `json:"server"`
}

// tailViolations count what broke "every subscriber gets every op once,
// in order".
type tailViolations struct {
	Missing    int64 `json:"missing"`
	Duplicates int64 `json:"duplicates"`
	OutOfOrder int64 `json:"out_of_order"`
	Unreadable int64 `json:"unreadable"`
	Ended      int64 `json:"subscriptions_ended"` // ended by an error before we closed them
}

func (v tailViolations) total() int64 {
	return v.Missing + v.Duplicates + v.OutOfOrder + v.Unreadable + v.Ended
}

// tailDrainTimeout bounds the wait for subscribers to catch up.
const tailDrainTimeout = 30 * time.Second

func benchTailRun(ctx context.Context, stderr io.Writer, cfg *Config) (*tailReport, error) {
	return onTarget(ctx, cfg, func(t *benchTarget) (*tailReport, error) { return tailRun(ctx, stderr, t, cfg) })
}

func tailRun(ctx context.Context, stderr io.Writer, t *benchTarget, cfg *Config) (*tailReport, error) {
	toks, err := t.createShares(ctx, 1)
	if err != nil {
		return nil, err
	}
	// conns[0] is the writer's, the others the subscribers'.
	conns, err := openConns(ctx, t, slices.Repeat(toks[:1], cfg.Subscribers+1), false)
	if err != nil {
		return nil, err
	}
	defer closeConns(conns)
	var delivery latHist
	subs, err := subscribeAll(ctx, conns[1:], &delivery)
	if err != nil {
		return nil, err
	}
	defer closeSubs(subs)
	progress(stderr, "tail: 1 writer at %d ops/s, %d subscriber(s), %s", cfg.Rate, cfg.Subscribers, cfg.Duration)
	sampler := startSampler(ctx, t, 500*time.Millisecond)
	w, werr := tailWrite(ctx, conns[0], cfg)
	after, serr := t.scrape(ctx)
	peak := sampler.Stop(memOf(after))
	if err := firstErr(werr, serr); err != nil {
		return nil, err
	}
	rep := &tailReport{Subscribers: cfg.Subscribers, Rate: cfg.Rate, Seconds: w.elapsed.Seconds(), Sent: w.sent,
		Batches: w.batches, SentPerSec: rateOf(float64(w.sent), w.elapsed), Writer: w.lat.Summary(),
		Server: serverReport{End: memOf(after), Peak: peak}}
	rep.DrainMs = ms(drain(ctx, subs, w.sent))
	closeSubs(subs)
	rep.Violations = tailCheck(subs, w.sent)
	rep.Delivery = delivery.Summary()
	rep.Delivered = int64(rep.Delivery.Count)
	return rep, nil
}

// tailWritten is what the writer did.
type tailWritten struct {
	sent, batches int64
	elapsed       time.Duration
	lat           *latHist
}

// tailWrite appends paced ops for cfg.Duration: each batch carries every
// permit due, each op its sequence number and the time it was built.
func tailWrite(ctx context.Context, c *benchConn, cfg *Config) (tailWritten, error) {
	app, err := c.share.Appender(ctx)
	if err != nil {
		return tailWritten{}, fmt.Errorf("bench: appender: %w", err)
	}
	defer app.Release()
	maxBatch := max(1, min(1000, sharevat.DefaultLimits().MaxBatchBytes/(cfg.Body+opOverhead)))
	w := tailWritten{lat: &latHist{}}
	p := startPacer(ctx, cfg.Rate, cfg.Duration)
	defer p.Wait()
	start := time.Now()
	for range p.C {
		n := 1 + p.takeUpTo(maxBatch-1)
		b := tailBatch(w.sent, n, cfg.Body, c.share.Access.Epoch)
		t0 := time.Now()
		if err := appendOne(ctx, &benchConn{app: app}, b); err != nil {
			return w, err
		}
		w.lat.Record(time.Since(t0))
		w.sent += int64(n)
		w.batches++
	}
	w.elapsed = time.Since(start)
	return w, ctx.Err()
}

// tailBatch builds ops from+1 … from+n.
func tailBatch(from int64, n, size int, epoch sharevat.Epoch) *sharevat.Batch {
	ops := make([]sharevat.Op, n)
	for k := range ops {
		seq := from + int64(k) + 1
		id := "t" + strconv.FormatInt(seq, 10)
		ops[k] = sharevat.Op{OpID: id, Seq: uint32(k), Kind: sharevat.KindEvent, Body: tailBody(seq, size)}
	}
	return &sharevat.Batch{BatchID: "b" + strconv.FormatInt(from+1, 10), Epoch: epoch, Ops: ops}
}

// tailBody is {"n":seq,"t":unix-nanos,"p":"xx…"}, padded to size bytes
// when size leaves room.
func tailBody(seq int64, size int) []byte {
	head := `{"n":` + strconv.FormatInt(seq, 10) + `,"t":` + strconv.FormatInt(time.Now().UnixNano(), 10)
	if pad := size - len(head) - len(`,"p":""}`); pad > 0 {
		return []byte(head + `,"p":"` + strings.Repeat("x", pad) + `"}`)
	}
	return []byte(head + "}")
}

// tailSub is one subscriber: its subscription and what it saw.
type tailSub struct {
	sub        *client.Subscription
	lat        *latHist
	last       atomic.Int64 // last sequence number received
	count      atomic.Int64
	dups, gaps atomic.Int64
	unreadable atomic.Int64
}

func subscribeAll(ctx context.Context, conns []*benchConn, lat *latHist) ([]*tailSub, error) {
	subs := make([]*tailSub, len(conns))
	err := forEach(ctx, len(conns), benchDialPar, func(ctx context.Context, i int) error {
		s := &tailSub{lat: lat}
		rd, err := conns[i].share.Reader(ctx)
		if err != nil {
			return fmt.Errorf("bench: reader: %w", err)
		}
		defer rd.Release()
		s.sub, err = rd.Subscribe(ctx, 0, s.handle)
		subs[i] = s
		return err
	})
	if err != nil {
		closeSubs(subs)
		return nil, fmt.Errorf("bench: subscribe: %w", err)
	}
	return subs, nil
}

// handle runs on the subscription's goroutine, one batch at a time.
func (s *tailSub) handle(entries []sharevat.Entry) error {
	now := time.Now().UnixNano()
	for i := range entries {
		var b struct{ N, T int64 }
		if err := json.Unmarshal(entries[i].Body, &b); err != nil || b.N == 0 {
			s.unreadable.Add(1)
			continue
		}
		switch last := s.last.Load(); {
		case b.N <= last:
			s.dups.Add(1)
			continue
		case b.N > last+1:
			s.gaps.Add(1)
		}
		s.lat.Record(time.Duration(now - b.T))
		s.last.Store(b.N)
		s.count.Add(1)
	}
	return nil
}

func (s *tailSub) close() {
	if s != nil && s.sub != nil {
		s.sub.Close()
		<-s.sub.Done()
	}
}

func closeSubs(subs []*tailSub) { closeConns(subs) }

// drain waits until every subscriber has op sent (or tailDrainTimeout)
// and returns how long that took.
func drain(ctx context.Context, subs []*tailSub, sent int64) time.Duration {
	start := time.Now()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for time.Since(start) < tailDrainTimeout && ctx.Err() == nil {
		if allHave(subs, sent) {
			break
		}
		<-tick.C
	}
	return time.Since(start)
}

func allHave(subs []*tailSub, sent int64) bool {
	for _, s := range subs {
		if s.last.Load() < sent {
			select {
			case <-s.sub.Done():
				continue // ended: counted as a violation
			default:
				return false
			}
		}
	}
	return true
}

// tailCheck counts the violations, once the subscriptions are closed.
func tailCheck(subs []*tailSub, sent int64) tailViolations {
	var v tailViolations
	for _, s := range subs {
		v.Missing += max(0, sent-s.count.Load())
		v.Duplicates += s.dups.Load()
		v.OutOfOrder += s.gaps.Load()
		v.Unreadable += s.unreadable.Load()
		if s.sub.Err() != nil {
			v.Ended++
		}
	}
	return v
}
