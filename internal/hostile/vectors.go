package hostile

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/schema"
)

// DrainFor bounds how long a vector that never read keeps reading at the
// end to learn how its connection ended (the close frame comes after all
// the server had queued).
const DrainFor = 10 * time.Second

// answerWait bounds the wait for one answer in the crash vectors.
const answerWait = 5 * time.Second

// returns is a read loop handler that delivers decoded Returns (and
// Aborts) on a channel, dropping them when nobody is listening.
type returns struct {
	ch   chan Incoming
	bad  atomic.Int64 // undecodable messages
	fn   func(Incoming)
	only bool // deliver only Returns and Aborts
}

func newReturns(n int) *returns { return &returns{ch: make(chan Incoming, n), only: true} }

func (r *returns) handle(data []byte) {
	in, err := Decode(data)
	if err != nil {
		r.bad.Add(1)
		return
	}
	if r.fn != nil {
		r.fn(in)
	}
	if r.only && in.Which != rpccp.Message_Which_return && in.Which != rpccp.Message_Which_abort {
		return
	}
	select {
	case r.ch <- in:
	default:
	}
}

// awaitReturn waits for the Return of question qid, the connection's end
// or d, whichever comes first.
func awaitReturn(c *Conn, r *returns, qid uint32, d time.Duration) (Incoming, bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case in := <-r.ch:
			if in.Which == rpccp.Message_Which_return && in.ID == qid {
				return in, true
			}
		case <-c.Done():
			return Incoming{}, false
		case <-t.C:
			return Incoming{}, false
		}
	}
}

func describe(in Incoming, ok bool) string {
	switch {
	case !ok:
		return "no answer"
	case in.Exception != "":
		return "exception: " + in.Exception
	}
	return "results"
}

// PingFlood is §2's "Vault.ping calls never followed by Finish": n pings
// on the bootstrap Vault, at most window unanswered at a time (so the cap
// on calls in flight is not what stops it), answers read and never
// finished. It stops at n, when the connection ends, or when ctx ends.
func PingFlood(ctx context.Context, url string, n, window int) *Report {
	r := newReport("ping-no-finish")
	defer r.timed()()
	c := r.dial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	if window <= 0 {
		window = 256
	}
	sem := make(chan struct{}, window)
	var answered atomic.Int64
	c.Read(func(data []byte) {
		in, err := Decode(data)
		if err == nil && in.Which == rpccp.Message_Which_return && in.ID != 0 {
			answered.Add(1)
			<-sem
		}
	})
	setDeadline(ctx, c)
	_ = c.Send(Bootstrap(0))
	sent := 0
loop:
	for ; sent < n; sent++ {
		select {
		case sem <- struct{}{}:
		case <-c.Done():
			break loop
		case <-ctx.Done():
			break loop
		}
		if err := c.Queue(PingCall(uint32(sent+1), PromisedAnswer(0))); err != nil {
			break
		}
		if len(sem) == cap(sem) || sent == n-1 {
			if err := c.Flush(); err != nil {
				break
			}
		}
	}
	_ = c.Flush()
	// Wait for the last answers (bounded), then look whether the server
	// closed us.
	waitUntil(ctx, c, func() bool { return answered.Load() >= int64(sent) })
	r.Detail = fmt.Sprintf("%d pings sent, %d answered, none finished", sent, answered.Load())
	r.ended(c, c.Wait(100*time.Millisecond))
	return r
}

// BootstrapFlood is §2's "Bootstrap messages, replies never read": n
// Bootstrap messages (question ids 0…n-1) written as fast as the socket
// takes them; nothing is read until the end, then the connection is
// drained (up to DrainFor) to see how it ended.
func BootstrapFlood(ctx context.Context, url string, n int) *Report {
	r := newReport("bootstrap-never-read")
	defer r.timed()()
	c := r.dial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	setDeadline(ctx, c)
	msg := Bootstrap(0)
	sent := 0
	for ; sent < n && ctx.Err() == nil; sent++ {
		putBootstrapID(msg, uint32(sent))
		if err := c.Queue(msg); err != nil {
			r.fail(fmt.Errorf("write after %d: %w", sent, err))
			break
		}
	}
	_ = c.Flush()
	r.Detail = fmt.Sprintf("%d bootstraps written", sent)
	r.ended(c, c.Drain(DrainFor))
	return r
}

// putBootstrapID patches the question id of a message built by
// Bootstrap: an 8-byte segment table, the root pointer, the Message
// struct (one data word, one pointer), then the Bootstrap struct whose
// first data word holds the id.
func putBootstrapID(msg []byte, qid uint32) {
	const off = 8 + 8 + 16 // segment table, root pointer, Message struct
	msg[off], msg[off+1], msg[off+2], msg[off+3] = byte(qid), byte(qid>>8), byte(qid>>16), byte(qid>>24)
}

// CapTableBomb is §2's "one call carrying n capability descriptors": a
// Vault.ping on the bootstrap whose params' cap table holds n
// senderHosted descriptors with distinct ids (16 bytes each: 580k make a
// 9.3 MB message). The server imports each and later releases each, one
// message apiece; everything it sends back is read and counted until n+2
// messages came, the connection ends, or ctx ends.
func CapTableBomb(ctx context.Context, url string, n int) *Report {
	r := newReport("cap-table-bomb")
	defer r.timed()()
	msg, err := Call(CallSpec{QuestionID: 1, Target: PromisedAnswer(0), InterfaceID: schema.Vault_TypeID, MethodID: VaultPing, NCaps: n})
	if err != nil {
		r.fail(err)
		return r
	}
	c := r.dial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	var releases, returned atomic.Int64
	var reply atomic.Value
	c.Read(func(data []byte) {
		in, err := Decode(data)
		switch {
		case err != nil:
		case in.Which == rpccp.Message_Which_release:
			releases.Add(1)
		case in.Which == rpccp.Message_Which_return && in.ID == 1:
			returned.Add(1)
			reply.Store(describe(in, true))
		}
	})
	setDeadline(ctx, c)
	_ = c.Queue(Bootstrap(0))
	if err := c.Send(msg); err != nil {
		r.fail(fmt.Errorf("write: %w", err))
	}
	waitUntil(ctx, c, func() bool { return c.Received() >= int64(n)+2 })
	got, _ := reply.Load().(string)
	if got == "" {
		got = "no answer"
	}
	r.Detail = fmt.Sprintf("message %d bytes; %d releases back; the call: %s", len(msg), releases.Load(), got)
	r.ended(c, c.Wait(100*time.Millisecond))
	return r
}

// FragmentHold is §2's "connections each holding an unfinished fragmented
// message, kept alive by pings": conns connections each write size bytes
// as a binary message in fragments of fragment bytes with a ping after
// each, never the final fragment, then keep the message open with a
// one-byte fragment and a ping every second until hold has passed or ctx
// ends. Server frames are read (and discarded) throughout, to see closes.
func FragmentHold(ctx context.Context, url string, conns, size, fragment int, hold time.Duration) *Report {
	r := newReport("fragments-held")
	defer r.timed()()
	if fragment <= 0 {
		fragment = 256 << 10
	}
	ctx, cancel := context.WithTimeout(ctx, hold)
	defer cancel()
	var written atomic.Int64
	var wg sync.WaitGroup
	for range conns {
		wg.Go(func() {
			c := r.dial(ctx, url)
			if c == nil {
				return
			}
			defer c.Close()
			c.Read(nil)
			setDeadline(ctx, c)
			n := holdFragments(ctx, c, size, fragment)
			written.Add(int64(n))
			if ctx.Err() != nil {
				r.ended(c, c.Wait(0)) // held to the end: open, unless closed just now
				return
			}
			// Stopped early (a failed write): the close frame, if any,
			// is on its way.
			r.ended(c, c.Wait(DrainFor))
			if err := c.WriteErr(); err != nil {
				r.fail(fmt.Errorf("write: %w", err))
			}
		})
	}
	wg.Wait()
	r.Detail = fmt.Sprintf("%.0f MiB of fragments written, never finished", float64(written.Load())/(1<<20))
	return r
}

// holdFragments writes one unfinished message on c and keeps it open;
// it returns the payload bytes written.
func holdFragments(ctx context.Context, c *Conn, size, fragment int) int {
	chunk := make([]byte, max(fragment, 8))
	written := 0
	op := byte(OpBinary)
	// The first fragment opens with a segment table announcing one
	// segment that fills the whole message, so the server must hold
	// every byte it reads (all zeros otherwise: a zero table announces an
	// empty message, and what follows it is discarded as it arrives).
	binary.LittleEndian.PutUint32(chunk[4:], uint32((size-8)/8))
	for written < size {
		n := min(fragment, size-written)
		if c.WriteFrame(op, false, chunk[:n]) != nil || c.WriteFrame(OpPing, true, nil) != nil || c.Flush() != nil {
			return written
		}
		op = OpContinuation
		written += n
		clear(chunk[:8])
	}
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return written
		case <-c.Done():
			return written
		case <-t.C:
			if c.WriteFrame(OpContinuation, false, chunk[:1]) != nil || c.WriteFrame(OpPing, true, nil) != nil || c.Flush() != nil {
				return written
			}
			written++
		}
	}
}

// ReadFlood is §2's "pipelined Reader.read calls, replies not read":
// Bootstrap, Vault.restore(token), Share.reader(), then n Reader.read(0,
// limit) calls pipelined on the reader, all in one write; nothing is read
// for hold (or until ctx ends), then the connection is drained.
func ReadFlood(ctx context.Context, url, token string, n int, limit uint32, hold time.Duration) *Report {
	r := newReport("reads-never-read")
	defer r.timed()()
	c := r.dial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	setDeadline(ctx, c)
	_ = c.Queue(Bootstrap(0))
	_ = c.Queue(RestoreCall(1, 0, token))
	_ = c.Queue(ReaderCall(2, 1))
	for i := range n {
		_ = c.Queue(ReadCall(uint32(3+i), 2, 0, limit))
	}
	if err := c.Flush(); err != nil {
		r.fail(fmt.Errorf("write: %w", err))
	}
	holdOpen(ctx, c, hold)
	r.Detail = fmt.Sprintf("%d reads pipelined, replies unread for %s", n, hold)
	r.ended(c, c.Drain(DrainFor))
	return r
}

// SubscribeFlood is §2's "subscriptions, pushes never answered": on one
// connection, Bootstrap, Vault.restore(token), Share.reader(), then n
// Reader.subscribe(0, sink) calls, each with a sink we claim to export
// (ids 1…n). The server's pushes arrive as Calls that are never answered.
// With readPushes they are read and dropped (the server sees a live peer
// that never returns); otherwise nothing is read until the end. After
// hold (or when ctx ends) the connection is drained.
func SubscribeFlood(ctx context.Context, url, token string, n int, readPushes bool, hold time.Duration) *Report {
	r := newReport("subscriptions-never-answered")
	defer r.timed()()
	c := r.dial(ctx, url)
	if c == nil {
		return r
	}
	defer c.Close()
	var pushes, subscribed, refused atomic.Int64
	var lastErr atomic.Value
	if readPushes {
		c.Read(func(data []byte) {
			in, err := Decode(data)
			switch {
			case err != nil:
			case in.Which == rpccp.Message_Which_call:
				pushes.Add(1)
			case in.Which == rpccp.Message_Which_return && in.ID >= 3:
				if in.Exception != "" {
					refused.Add(1)
					lastErr.Store(in.Exception)
				} else {
					subscribed.Add(1)
				}
			}
		})
	}
	setDeadline(ctx, c)
	_ = c.Queue(Bootstrap(0))
	_ = c.Queue(RestoreCall(1, 0, token))
	_ = c.Queue(ReaderCall(2, 1))
	for i := range n {
		_ = c.Queue(SubscribeCall(uint32(3+i), 2, 0, uint32(1+i)))
	}
	if err := c.Flush(); err != nil {
		r.fail(fmt.Errorf("write: %w", err))
	}
	holdOpen(ctx, c, hold)
	r.Detail = fmt.Sprintf("%d subscribes sent", n)
	if readPushes {
		le, _ := lastErr.Load().(string)
		r.Detail += fmt.Sprintf("; %d answered, %d refused (%s); %d pushes received, none answered", subscribed.Load(), refused.Load(), le, pushes.Load())
	}
	r.ended(c, c.Drain(DrainFor))
	return r
}

// setDeadline bounds c's writes by ctx's deadline, if it has one.
func setDeadline(ctx context.Context, c *Conn) {
	if d, ok := ctx.Deadline(); ok {
		c.SetWriteDeadline(d)
	}
}

// holdOpen keeps c open for d, until ctx ends or the read loop (if any)
// sees the connection end.
func holdOpen(ctx context.Context, c *Conn, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	case <-c.Done():
	}
}

// waitUntil polls cond every 10 ms until it holds, the connection ends
// or ctx ends: the counts it watches are bumped by the read loop, and a
// per-message notification would cost more than the vector itself.
func waitUntil(ctx context.Context, c *Conn, cond func() bool) {
	t := time.NewTicker(10 * time.Millisecond)
	defer t.Stop()
	for !cond() {
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		case <-c.Done():
			return
		}
	}
}
