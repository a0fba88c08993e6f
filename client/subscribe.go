package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// Subscription is a live subscription to a share's log, made by
// Reader.Subscribe. The server pushes the backlog and then every new op,
// in cursor order, with flow control: while the handler is busy, the
// server holds back (a slow handler slows only its own subscription).
//
// Concurrency: the handler runs on one goroutine of the connection
// (go-capnp's, for this subscription's sink), one batch at a time, in
// order; it must not block forever, or Done never closes. A subscription
// holds no lock while the handler runs.
type Subscription struct {
	handler func([]sharevat.Entry) error
	cursor  atomic.Uint64 // last cursor delivered

	mu      sync.Mutex
	cap     schema.Subscription // set once the subscribe call answered; zero once released
	ended   bool                // no more deliveries
	running bool                // the handler is running
	err     error
	done    chan struct{}
}

// Subscribe follows the log from cursor from: handler gets every op with
// a larger cursor, in batches, in order, each exactly once; the backlog
// first, then live ops as they are committed. A handler error ends the
// subscription (Err returns it). ctx bounds the subscribe call only;
// Close ends the subscription. Needs read.
//
// Subscribe is the primitive: it never resubscribes. Reader.Tail wraps it
// for one op at a time until ctx ends; Tail with a Redeemer also
// reconnects and resumes after a lost connection.
//
// Errors: EInvalid if from is past the share's head; ETooLarge when the
// server or this connection has too many subscriptions; ERevoked if the
// capability is dead; EUnavailable if the connection is lost.
func (r *Reader) Subscribe(ctx context.Context, from sharevat.Cursor, handler func([]sharevat.Entry) error) (*Subscription, error) {
	if handler == nil {
		return nil, sharevat.Errorf(sharevat.EInvalid, "subscribe needs a handler")
	}
	s := &Subscription{handler: handler, done: make(chan struct{})}
	s.cursor.Store(uint64(from))
	fut, release := r.cap.Subscribe(ctx, func(p schema.Reader_subscribe_Params) error {
		p.SetFromCursor(uint64(from))
		return p.SetSink(schema.OpSink_ServerToClient((*sink)(s)))
	})
	defer release()
	if _, err := fut.Struct(); err != nil {
		err = fromWire(err)
		s.finish(err)
		return nil, err
	}
	s.setCap(fut.Subscription().AddRef())
	return s, nil
}

// Done is closed once the subscription has ended and the handler has
// returned for the last time; the handler is never called after that.
func (s *Subscription) Done() <-chan struct{} { return s.done }

// Err says why the subscription ended, once Done is closed: nil after
// Close or a normal end by the server; a *sharevat.Error with ERevoked
// when the grant was revoked, expired or fenced by an epoch bump;
// EUnavailable when the connection was lost or the server stopped; or
// the handler's error.
func (s *Subscription) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Cursor returns the cursor of the last op delivered to the handler (the
// from cursor until the first delivery). Resubscribe from it to resume.
func (s *Subscription) Cursor() sharevat.Cursor { return sharevat.Cursor(s.cursor.Load()) }

// Close ends the subscription and releases it on the server; Err will be
// nil unless it had already ended. A handler call in progress finishes
// (Done closes after it); Close may be called from the handler.
func (s *Subscription) Close() { s.finish(nil) }

// finish ends the subscription with err, once. Done closes now, or when
// the running handler returns. Releasing the Subscription capability
// ends the subscription on the server.
func (s *Subscription) finish(err error) {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended, s.err = true, err
	if !s.running {
		close(s.done)
	}
	c := s.cap
	s.cap = schema.Subscription{}
	s.mu.Unlock()
	c.Release() // no lock held: releasing a capability calls into go-capnp
}

// setCap keeps the Subscription capability, or releases it at once if
// the subscription already ended (an end() can arrive before the answer).
func (s *Subscription) setCap(c schema.Subscription) {
	s.mu.Lock()
	if !s.ended {
		s.cap, c = c, schema.Subscription{}
	}
	s.mu.Unlock()
	c.Release()
}

// begin marks the handler running, unless the subscription ended.
func (s *Subscription) begin() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return false
	}
	s.running = true
	return true
}

// finishRun marks the handler returned and closes Done if the
// subscription ended meanwhile.
func (s *Subscription) finishRun() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.running = false
	if s.ended {
		close(s.done)
	}
}

// deliver hands one pushed batch to the handler: entries at or before
// the cursor are dropped (never delivered twice); a gap is a protocol
// violation and ends the subscription.
func (s *Subscription) deliver(entries []sharevat.Entry) error {
	last := s.Cursor()
	for len(entries) > 0 && entries[0].Cursor <= last {
		entries = entries[1:]
	}
	if len(entries) == 0 {
		return nil
	}
	if entries[0].Cursor != last+1 {
		return sharevat.Errorf(sharevat.EInternal, "subscription: got cursor %d after %d", entries[0].Cursor, last)
	}
	if err := s.handler(entries); err != nil {
		return err
	}
	s.cursor.Store(uint64(entries[len(entries)-1].Cursor))
	return nil
}

// errStopped is what a push answers once the subscriber stopped; the
// server then ends the subscription quietly.
var errStopped = errors.New("subscriber stopped")

// sink is the OpSink the server pushes to: a Subscription seen as a
// Cap'n Proto server. go-capnp runs its calls one at a time, in order.
type sink Subscription

// Push delivers one batch. The handler's own error is kept for Err; the
// server is told only that the subscriber stopped.
func (k *sink) Push(_ context.Context, call schema.OpSink_push) error {
	s := (*Subscription)(k)
	if !s.begin() {
		return errStopped
	}
	defer s.finishRun()
	l, err := call.Args().Ops()
	var entries []sharevat.Entry
	if err == nil {
		entries, err = wire.ReadEntries(l)
	}
	if err == nil {
		err = s.deliver(entries)
	}
	if err != nil {
		s.finish(err)
		return errStopped
	}
	return nil
}

// End records why the server ended the subscription.
func (k *sink) End(_ context.Context, call schema.OpSink_end) error {
	code, _ := call.Args().Code()
	detail, _ := call.Args().Detail()
	(*Subscription)(k).finish(endError(code, detail))
	return nil
}

// Shutdown runs when the server released the sink or the connection
// died. After an end() or Close it changes nothing.
func (k *sink) Shutdown() {
	(*Subscription)(k).finish(sharevat.Errorf(sharevat.EUnavailable, "subscription lost: the connection closed or the server stopped"))
}

// endError turns end(code, detail) into the subscription's error.
func endError(code, detail string) error {
	if code == "" {
		return nil
	}
	if e := sharevat.ParseError(code + ": " + detail); e != nil {
		return e
	}
	return sharevat.Errorf(sharevat.EInternal, "subscription ended: %s: %s", code, detail)
}
