package vat

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"capnproto.org/go/capnp/v3/flowcontrol"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// Push sizing and flow control. Each subscription pushes batches of at
// most pushMaxOps entries and pushBudget bytes (always at least one
// entry), and has at most Quotas.PushWindow bytes of pushes unanswered by
// the subscriber. Before it reads a push from the store it takes room for
// the largest push it could read from its connection's gate
// (Quotas.ConnPushWindow), keeps what the push needs until the subscriber
// answers it, and gives the rest back at once. So whatever the backlog
// and however many subscriptions a peer opens, the vat holds at most
// ConnPushWindow bytes of pushes for one connection.
const (
	pushBudget = 64 << 10
	pushMaxOps = 256
	// endTimeout bounds the wait for the subscriber to take end().
	endTimeout = 5 * time.Second
)

// errReleased ends a subscription whose capability the client released.
var errReleased = errors.New("subscription released")

// subscription follows one share's log for one OpSink: the backlog after
// its cursor, then every op committed later, in cursor order, with no
// gap and no repeat. Its goroutine (run) is the only one that reads the
// store or pushes for it; it stops when ctx ends, which happens when the
// client releases the Subscription (Shutdown), the grant dies (revoke,
// epoch bump), or the vat closes, and when a push fails.
type subscription struct {
	hub    *hub
	f      *facet
	sink   schema.OpSink // our own reference, with the flow window
	last   sharevat.Cursor
	pushed atomic.Uint64 // last cursor pushed, for Subscription.cursor
	held   int64         // gate room taken for the push being read or sent
	ctx    context.Context
	cancel context.CancelCauseFunc
}

var (
	_ schema.Subscription_Server = (*subscription)(nil)
	_ flowcontrol.FlowLimiter    = window{}
)

// Subscribe starts pushing every op after fromCursor to sink and answers
// the Subscription that controls it (see subscribe).
func (r *readerServer) Subscribe(ctx context.Context, call schema.Reader_subscribe) error {
	call.Go()
	return r.f.run(ctx, "Reader.subscribe", sharevat.ScopeRead, func(ctx context.Context) error {
		return r.f.vat.subscribe(ctx, r.f, call)
	})
}

// subscribe checks the arguments, reserves a slot and starts the
// subscription's goroutine. Errors: EInvalid for a missing sink or a
// cursor past the head; ECompacted for a cursor before the earliest
// readable one; ETooLarge over MaxSubscriptions or
// MaxConnSubscriptions; EUnavailable while the vat closes.
func (v *Vat) subscribe(ctx context.Context, f *facet, call schema.Reader_subscribe) error {
	args := call.Args()
	from := sharevat.Cursor(args.FromCursor())
	if !args.HasSink() || !args.Sink().IsValid() {
		return sharevat.Errorf(sharevat.EInvalid, "subscribe needs a sink")
	}
	sh, err := v.store.Share(ctx, f.share())
	if err != nil {
		return err
	}
	if from > sh.Head {
		return sharevat.Errorf(sharevat.EInvalid, "fromCursor %d is past the head %d", from, sh.Head)
	}
	if from+1 < sh.Earliest { // the store's compacted answer names the earliest cursor
		if _, _, err := v.store.Read(ctx, sh.ID, from, 1); err != nil {
			return err
		}
	}
	res, err := call.AllocResults()
	if err != nil {
		return err
	}
	s, err := v.hub.start(f, from, args.Sink())
	if err != nil {
		return err
	}
	// The results own the client now; if they are dropped, releasing it
	// calls Shutdown, which stops the goroutine.
	return res.SetSubscription(schema.Subscription(guarded(schema.Subscription_Methods(nil, s), s, v.log)))
}

// start joins share and runs a subscription for a reference of sink
// (parameters are released when the handler returns: docs/design.md §10).
func (h *hub) start(f *facet, from sharevat.Cursor, sink schema.OpSink) (*subscription, error) {
	if err := h.join(f); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancelCause(h.ctx)
	s := &subscription{hub: h, f: f, sink: sink.AddRef(), last: from, ctx: ctx, cancel: cancel}
	s.sink.SetFlowLimiter(newWindow(h.quotas.PushWindow, s))
	s.pushed.Store(uint64(from))
	go s.run()
	return s, nil
}

// Cursor answers the last cursor pushed to the sink.
func (s *subscription) Cursor(ctx context.Context, call schema.Subscription_cursor) error {
	return s.f.run(ctx, "Subscription.cursor", sharevat.ScopeRead, func(context.Context) error {
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		res.SetCursor(s.pushed.Load())
		return nil
	})
}

// Shutdown is called by go-capnp when the last reference to the
// Subscription is gone: the client released it or its connection died.
func (s *subscription) Shutdown() { s.cancel(errReleased) }

// run is the subscription's goroutine.
func (s *subscription) run() {
	defer s.hub.wg.Done()
	stop := context.AfterFunc(s.f.lg.ctx, func() { s.cancel(errDead) })
	err := s.follow()
	stop()
	s.cancel(err)
	if errors.Is(err, sharevat.ErrRevoked) {
		s.end(sharevat.ERevoked, "capability revoked")
	} else if sharevat.ErrorCode(err) == sharevat.ECompacted { // compacted past this subscription's cursor
		s.end(sharevat.ECompacted, sharevat.ErrorMessage(err))
	} else if !errors.Is(err, errReleased) && s.hub.ctx.Err() == nil {
		s.f.vat.log.Debug("subscription ended", "share", s.f.share(), "grant", s.f.lg.g.ID, "cursor", s.last, "err", err)
	}
	s.hub.leave(s.f)
	s.sink.Release() // after leave: a subscriber whose sink is released may subscribe again
}

// follow pushes until the subscription must end, and says why: errDead
// when the grant died or expired, errReleased, or what failed.
func (s *subscription) follow() error {
	for {
		if !s.f.lg.alive(s.f.vat.now()) {
			return errDead
		}
		if s.f.vat.unsynced() { // another vat may have revoked it: changes.go
			if err := s.f.vat.reg.recheck(s.ctx, s.f.lg); err != nil {
				return s.why(err)
			}
		}
		wake := s.hub.watch(s.f.share()) // before the read: see hub
		entries, head, err := s.read()
		if err != nil {
			return s.why(err)
		}
		if len(entries) > 0 {
			err = s.push(entries)
		}
		s.releaseHeld() // an empty read, or a push that never reached the window
		if err != nil {
			return s.why(err)
		}
		if len(entries) == 0 || s.last >= head { // caught up (never spin on an empty read)
			if err := s.wait(wake); err != nil {
				return err
			}
		}
	}
}

// why prefers the cause of a cancelled subscription to the error it
// caused (a cancelled read or push).
func (s *subscription) why(err error) error {
	if cause := context.Cause(s.ctx); cause != nil {
		return cause
	}
	return err
}

// read takes room for the largest push it could read (maxPush) from the
// connection's gate, reads the push, and keeps only the room it needs. So
// a subscription never holds data the gate has not admitted: a thousand
// subscriptions of one connection on a log of huge ops read them a few at
// a time. A push larger still (an op stored under larger limits) is
// dropped, its room given back, the room it needs taken, and read again:
// no subscription waits for the gate while it holds data or room.
func (s *subscription) read() ([]sharevat.Entry, sharevat.Cursor, error) {
	gate := s.f.conn.push
	held, err := gate.acquire(s.ctx, s.f.vat.maxPush())
	if err != nil {
		return nil, 0, err
	}
	s.held = held
	entries, head, err := s.f.vat.readPush(s.ctx, s.f.share(), s.last, int(min(s.held, pushBudget)))
	if err != nil {
		return nil, 0, err
	}
	if need := pushSize(entries); need > s.held {
		entries = nil
		s.releaseHeld() // never wait while holding room: others may wait for it
		if s.held, err = gate.acquire(s.ctx, need); err != nil {
			return nil, 0, err
		}
		if entries, head, err = s.f.vat.readPush(s.ctx, s.f.share(), s.last, int(s.held)); err != nil {
			return nil, 0, err
		}
	}
	if need := pushSize(entries); need < s.held {
		gate.release(s.held - need)
		s.held = need
	}
	return entries, head, nil
}

// pushSize is the room a push of entries takes.
func pushSize(entries []sharevat.Entry) int64 {
	n := int64(0)
	for i := range entries {
		n += int64(entrySize(&entries[i]))
	}
	return n
}

// releaseHeld gives back gate room not handed to a push in flight.
func (s *subscription) releaseHeld() {
	s.f.conn.push.release(s.held)
	s.held = 0
}

// takeHeld hands the room held to the push being sent; the window gives
// it back when the subscriber answers.
func (s *subscription) takeHeld() int64 {
	n := s.held
	s.held = 0
	return n
}

// push sends one batch; it blocks while the flow window is full. It
// re-checks the grant first, so an expired grant pushes nothing more.
func (s *subscription) push(entries []sharevat.Entry) error {
	if !s.f.lg.alive(s.f.vat.now()) {
		return errDead
	}
	// pushed moves first: once the sink has the ops, Cursor answers at
	// least their last cursor (the sink may see them before Push returns).
	s.pushed.Store(uint64(entries[len(entries)-1].Cursor))
	err := s.sink.Push(s.ctx, func(p schema.OpSink_push_Params) error {
		return wire.SetEntries(p.NewOps, entries)
	})
	if err != nil { // an earlier push failed: the subscriber is gone or stopped
		return err
	}
	s.last = entries[len(entries)-1].Cursor
	return nil
}

// wait blocks until the share's head may have moved, the grant's expiry
// passes, or the subscription ends.
func (s *subscription) wait(wake <-chan struct{}) error {
	var expiry <-chan time.Time
	if exp := s.f.lg.expires; !exp.IsZero() {
		t := time.NewTimer(exp.Sub(s.f.vat.now()))
		defer t.Stop()
		expiry = t.C
	}
	select {
	case <-wake:
	case <-expiry:
	case <-s.ctx.Done():
		return context.Cause(s.ctx)
	}
	return nil
}

// end tells the subscriber why its subscription ended. It uses a fresh
// reference to the sink, which has no flow window (end must not queue
// behind a full window) and no stream error from cancelled pushes; the
// call still arrives after every push sent before it (E-order).
func (s *subscription) end(code sharevat.Code, detail string) {
	ctx, cancel := context.WithTimeout(s.hub.ctx, endTimeout)
	defer cancel()
	ctl := s.sink.AddRef()
	defer ctl.Release()
	fut, release := ctl.End(ctx, func(p schema.OpSink_end_Params) error {
		if err := p.SetCode(string(code)); err != nil {
			return err
		}
		return p.SetDetail(detail)
	})
	defer release()
	if _, err := fut.Struct(); err != nil {
		s.f.vat.log.Debug("subscription end not delivered", "share", s.f.share(), "grant", s.f.lg.g.ID, "err", err)
	}
}

// readPush reads the next push: entries after from, at most pushMaxOps
// and budget bytes (at least one), in growing chunks so that a few huge
// ops are not read in bulk only to be dropped; and the head.
func (v *Vat) readPush(ctx context.Context, share sharevat.ShareID, from sharevat.Cursor, budget int) ([]sharevat.Entry, sharevat.Cursor, error) {
	var out []sharevat.Entry
	var head sharevat.Cursor
	for chunk := 16; len(out) < pushMaxOps && budget > 0; chunk *= 2 {
		got, h, err := v.store.Read(ctx, share, from, min(chunk, pushMaxOps-len(out)))
		if err != nil {
			return nil, 0, err
		}
		head = h
		n := fitBudget(got, &budget, len(out) == 0)
		out = append(out, got[:n]...)
		if n < len(got) || len(got) == 0 {
			break
		}
		from = got[n-1].Cursor
	}
	return out, head, nil
}

// window is a subscription's flow limiter: go-capnp's fixed limiter of
// size bytes, except that a message larger than the whole window (one
// huge op) waits for an empty window instead of panicking. Each push also
// carries the connection gate's room its subscription took for it, given
// back with the window when the subscriber answers.
type window struct {
	fixed flowcontrol.FlowLimiter
	size  uint64
	sub   *subscription
}

func newWindow(size int64, s *subscription) window {
	return window{fixed: flowcontrol.NewFixedLimiter(size), size: uint64(size), sub: s}
}

func (w window) StartMessage(ctx context.Context, size uint64) (func(), error) {
	got, err := w.fixed.StartMessage(ctx, min(size, w.size))
	if err != nil {
		return nil, err
	}
	held, gate := w.sub.takeHeld(), w.sub.f.conn.push
	return func() { got(); gate.release(held) }, nil
}

func (w window) Release() { w.fixed.Release() }
