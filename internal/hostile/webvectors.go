package hostile

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// The Cap'n Web vectors: the hostile peer's memory attacks, and the ones the JSON
// protocol adds, against /capnweb. Each takes serve's /rpc URL (as the
// /rpc vectors do) and dials its /capnweb door.

// webCounts counts what a Cap'n Web vector's read loop saw.
type webCounts struct {
	resolves, rejects, pushes, aborts atomic.Int64
}

func (w *webCounts) handle(msg []byte) {
	switch webKind(msg) {
	case "resolve":
		w.resolves.Add(1)
	case "reject":
		w.rejects.Add(1)
	case "push":
		w.pushes.Add(1)
	case "abort":
		w.aborts.Add(1)
	}
}

func (w *webCounts) String() string {
	return fmt.Sprintf("%d resolves, %d rejects, %d pushes from the server, %d aborts",
		w.resolves.Load(), w.rejects.Load(), w.pushes.Load(), w.aborts.Load())
}

// webDial dials rpcURL's /capnweb door for r.
func (r *Report) webDial(ctx context.Context, rpcURL string) *Conn {
	return r.dial(ctx, WebURL(rpcURL))
}

// queueAll buffers msgs on c and flushes; it returns the first error.
func queueAll(c *Conn, msgs ...string) error {
	for _, m := range msgs {
		if err := c.QueueText(m); err != nil {
			return err
		}
	}
	return c.Flush()
}

// WebReadFlood is the slow reader: restore(token), share.reader(), then n
// reader.read(0, limit) calls pipelined and pulled in one write, and the
// socket never read for hold (or until ctx ends); then it is drained to
// see how the server ended it.
func WebReadFlood(ctx context.Context, url, token string, n, limit int, hold time.Duration) *Report {
	r := newReport("web-reads-never-read")
	defer r.timed()()
	c := r.webDial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	setDeadline(ctx, c)
	if err := queueAll(c, pipelinedReads(token, n, limit)...); err != nil {
		r.fail(fmt.Errorf("write: %w", err))
	}
	holdOpen(ctx, c, hold)
	r.Detail = fmt.Sprintf("%d reads pipelined and pulled, answers unread for %s", n, hold)
	r.ended(c, c.Drain(DrainFor))
	return r
}

// WebInflight is calls in flight up to the limit with big answers read
// slowly: restore, reader, n read(0, limit) calls pulled, then one
// message read every pace (the server's queue fills faster than that)
// until hold has passed.
func WebInflight(ctx context.Context, url, token string, n, limit int, pace, hold time.Duration) *Report {
	r := newReport("web-inflight-slow-reader")
	defer r.timed()()
	c := r.webDial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	var counts webCounts
	tick := time.NewTicker(pace)
	defer tick.Stop()
	c.ReadText(func(msg []byte) {
		counts.handle(msg)
		select {
		case <-tick.C:
		case <-ctx.Done():
		}
	})
	setDeadline(ctx, c)
	if err := queueAll(c, pipelinedReads(token, n, limit)...); err != nil {
		r.fail(fmt.Errorf("write: %w", err))
	}
	holdOpen(ctx, c, hold)
	r.Detail = fmt.Sprintf("%d reads in flight, read one answer per %s: %s", n, pace, &counts)
	r.ended(c, c.Wait(100*time.Millisecond))
	return r
}

// WebAnswerHold is answers held and never released: conns sessions each
// push restore(token) and pull it n times (at most window unanswered at
// once, so the in-flight limit is not what stops it), reading every
// answer and never sending a release, so each answer and the share stub
// in it stay in the server's export table. Each session ends at n, when
// the server closes it, or at hold.
func WebAnswerHold(ctx context.Context, url, token string, conns, n, window int, hold time.Duration) *Report {
	r := newReport("web-answers-never-released")
	defer r.timed()()
	ctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	var counts webCounts
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			c := r.webDial(ctx, url)
			if c == nil {
				return
			}
			defer c.Close()
			sem := make(chan struct{}, window)
			c.ReadText(func(msg []byte) {
				counts.handle(msg)
				if k := webKind(msg); k == "resolve" || k == "reject" {
					select {
					case <-sem:
					default:
					}
				}
			})
			setDeadline(ctx, c)
			sendWindowed(ctx, c, sem, n, func(i int) []string { return []string{WebRestore(token), WebPull(int64(i + 1))} })
			holdOpen(ctx, c, hold)
			r.ended(c, c.Wait(100*time.Millisecond))
		})
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%d sessions × %d restores pulled, never released: %s", conns, n, &counts)
	return r
}

// sendWindowed sends msgs(i) for i in [0, n), taking a slot of sem for
// each (the read loop gives slots back), until n, the connection's end or
// ctx's.
func sendWindowed(ctx context.Context, c *Conn, sem chan struct{}, n int, msgs func(int) []string) {
	for i := range n {
		select {
		case sem <- struct{}{}:
		case <-c.Done():
			return
		case <-ctx.Done():
			return
		}
		for _, m := range msgs(i) {
			if c.QueueText(m) != nil {
				return
			}
		}
		if len(sem) == cap(sem) || i == n-1 {
			if c.Flush() != nil {
				return
			}
		}
	}
}

// WebBigMessages is messages just under the read limit, many at once:
// conns sessions each write perConn messages built by msg (a padded ping,
// a wide array or object) in one go, each pulled, reading what comes
// back until every one is answered, the session ends, or ctx ends.
func WebBigMessages(ctx context.Context, name, url string, conns, perConn int, msg string) *Report {
	r := newReport(name)
	defer r.timed()()
	var counts webCounts
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			c := r.webDial(ctx, url)
			if c == nil {
				return
			}
			defer c.Close()
			c.ReadText(counts.handle)
			setDeadline(ctx, c)
			for i := range perConn {
				if queueAll(c, msg, WebPull(int64(i+1))) != nil {
					break
				}
			}
			waitUntil(ctx, c, func() bool { return c.Received() >= int64(perConn) })
			r.ended(c, c.Wait(100*time.Millisecond))
		})
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%d sessions × %d messages of %.1f MiB: %s", conns, perConn, float64(len(msg))/(1<<20), &counts)
	return r
}

// WebPartialFrame is a message that never ends: conns sessions each
// announce one text frame of size bytes, write all of it but the last
// byte, and hold it open (answering pings) until hold has passed or ctx
// ends.
func WebPartialFrame(ctx context.Context, url string, conns, size int, hold time.Duration) *Report {
	r := newReport("web-frame-never-finished")
	defer r.timed()()
	ctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	var written atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			c := r.webDial(ctx, url)
			if c == nil {
				return
			}
			defer c.Close()
			c.ReadText(nil)
			setDeadline(ctx, c)
			n, err := writePartial(c, size)
			written.Add(int64(n))
			if err != nil {
				r.ended(c, c.Wait(DrainFor))
				return
			}
			holdOpen(ctx, c, hold)
			r.ended(c, c.Wait(0))
		})
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%.0f MiB of frames written, never finished", float64(written.Load())/(1<<20))
	return r
}

// writePartial writes the header of a masked text frame of size bytes
// (a JSON string: a valid message, had it ended) and all its payload but
// the last byte; it returns the payload bytes written.
func writePartial(c *Conn, size int) (int, error) {
	var hdr [14]byte
	hdr[0] = 0x80 | OpText
	hdr[1] = 0x80 | 127
	binary.BigEndian.PutUint64(hdr[2:], uint64(size))
	// A zero mask key: the payload goes as written.
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := c.bw.Write(hdr[:]); err != nil {
		return 0, c.failWrite(err)
	}
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = 'x'
	}
	chunk[0] = '"'
	written := 0
	for written < size-1 {
		n := min(len(chunk), size-1-written)
		if _, err := c.bw.Write(chunk[:n]); err != nil {
			return written, c.failWrite(err)
		}
		written += n
		chunk[0] = 'x'
	}
	c.sent.Add(1)
	return written, c.bw.Flush()
}

// pipelinedReads is restore(token), reader() on it, and n read(0, limit)
// calls on that reader, each pulled: one message list, sent at once.
func pipelinedReads(token string, n, limit int) []string {
	msgs := []string{WebRestore(token), WebReader(1)}
	for i := range n {
		msgs = append(msgs, WebRead(2, 0, limit), WebPull(int64(3+i)))
	}
	return msgs
}
