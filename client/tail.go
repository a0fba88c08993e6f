package client

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/sharevat/sharevat"
)

// Tail follows the share that r redeems to, from cursor from, for as long
// as ctx lasts: it subscribes through the Share's Reader and hands every
// op after from to handler, one at a time, in cursor order, each exactly
// once — across reconnects. When the subscription dies of a transport
// error, Tail reports it to r (Redeemer.Fail) and resubscribes from the
// last cursor handler got; Redeemer.Share redials with backoff.
//
// Use Tail for a consumer that must keep following whatever happens to
// the connection. Reader.Tail follows on one connection and stops when it
// dies; Reader.Subscribe hands over whole batches and leaves every end to
// the caller.
//
// Tail returns ctx.Err() when ctx ends; the handler's error when it
// fails; or a permanent error (IsPermanent: revoked, unauthorized,
// permission denied, ...) as soon as it sees one, without another redeem.
// When Tail returns, handler is not running and will not be called again.
//
// Tail runs handler on a goroutine of the connection, never concurrently
// with itself.
func Tail(ctx context.Context, r *Redeemer, from sharevat.Cursor, handler func(sharevat.Entry) error) error {
	t := newTailer(from, handler)
	var pause retryPause
	for {
		start, before := time.Now(), t.cursor()
		err := t.follow(ctx, r)
		var he *handlerError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &he):
			return he.err
		case IsPermanent(err):
			return err
		}
		if t.cursor() > before || time.Since(start) > tailStable {
			pause.reset()
		}
		if err := pause.wait(ctx); err != nil {
			return err
		}
	}
}

// Tail follows this Reader's share from cursor from, on this Reader's
// connection: it hands every op after from to handler, one at a time, in
// cursor order, each exactly once, the backlog first and then live ops,
// until ctx ends, handler fails or the subscription ends. Needs read.
//
// Unlike the package-level Tail, it never reconnects: when the connection
// is lost it returns EUnavailable, and the caller redeems again (on a new
// Conn) and tails on from the cursor returned — which is what Tail with a
// Redeemer does for it. Use it to follow a share through a Share or
// Reader already held, for as long as its connection lasts.
//
// It returns the cursor of the last op handler accepted (from if none),
// and why it stopped — never nil: ctx.Err(); the handler's error;
// ERevoked when the grant was revoked, expired or fenced by an epoch bump;
// EUnavailable when the connection was lost or the server stopped;
// EInvalid if from is past the share's head; ETooLarge when the server or
// the connection has too many subscriptions. When it returns, handler is
// not running and will not be called again. It runs handler as Tail does.
func (r *Reader) Tail(ctx context.Context, from sharevat.Cursor, handler func(sharevat.Entry) error) (sharevat.Cursor, error) {
	t := newTailer(from, handler)
	sub, err := r.Subscribe(ctx, from, t.deliver)
	if err == nil {
		err = waitEnd(ctx, sub)
	}
	var he *handlerError
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case errors.As(err, &he):
		err = he.err
	case err == nil:
		err = sharevat.Errorf(sharevat.EUnavailable, "the server ended the subscription")
	}
	return t.cursor(), err
}

// tailer is one tail's state. last is written by the handler's goroutine
// and read by Tail's between subscriptions.
type tailer struct {
	handler func(sharevat.Entry) error
	last    atomic.Uint64
}

func newTailer(from sharevat.Cursor, handler func(sharevat.Entry) error) *tailer {
	t := &tailer{handler: handler}
	t.last.Store(uint64(from))
	return t
}

// cursor is the cursor of the last entry the handler accepted.
func (t *tailer) cursor() sharevat.Cursor { return sharevat.Cursor(t.last.Load()) }

// follow runs one subscription on r's Share until it ends or ctx does,
// and returns why it ended (nil for a normal end by the server). A
// failure that is not the handler's is reported to r.
func (t *tailer) follow(ctx context.Context, r *Redeemer) error {
	sh, err := r.Share(ctx)
	if err != nil {
		return err
	}
	sub, err := t.subscribe(ctx, sh)
	if err == nil {
		err = waitEnd(ctx, sub)
	}
	if ctx.Err() == nil && !errors.As(err, new(*handlerError)) {
		r.Fail(sh, err)
	}
	return err
}

func (t *tailer) subscribe(ctx context.Context, sh *Share) (*Subscription, error) {
	rd, err := sh.Reader(ctx)
	if err != nil {
		return nil, err
	}
	defer rd.Release() // the subscription does not need it
	return rd.Subscribe(ctx, t.cursor(), t.deliver)
}

// waitEnd waits for sub to end, or ends it when ctx does, and returns why it
// ended; once it returns, the handler is not running.
func waitEnd(ctx context.Context, sub *Subscription) error {
	select {
	case <-sub.Done():
		return sub.Err()
	case <-ctx.Done():
		sub.Close()
		<-sub.Done()
		return ctx.Err()
	}
}

// deliver hands entries to the handler one by one, skipping any at or
// before the last one delivered.
func (t *tailer) deliver(entries []sharevat.Entry) error {
	for _, e := range entries {
		if uint64(e.Cursor) <= t.last.Load() {
			continue
		}
		if err := t.handler(e); err != nil {
			return &handlerError{err}
		}
		t.last.Store(uint64(e.Cursor))
	}
	return nil
}

// handlerError marks an error of Tail's handler, to tell it from a
// transport error of the subscription.
type handlerError struct{ err error }

func (e *handlerError) Error() string { return e.err.Error() }
func (e *handlerError) Unwrap() error { return e.err }

// Tail's own pause between subscriptions that deliver nothing (a server
// that accepts and then drops them must not be hammered): none after the
// first, then doubling from tailMinPause up to tailMaxPause, with jitter.
// A subscription that delivered, or lived tailStable, resets it.
const (
	tailMinPause = 100 * time.Millisecond
	tailMaxPause = 5 * time.Second
	tailStable   = 30 * time.Second
)

type retryPause struct{ n int }

func (p *retryPause) reset() { p.n = 0 }

func (p *retryPause) wait(ctx context.Context) error {
	defer func() { p.n++ }()
	if p.n == 0 {
		return nil
	}
	return sleepJittered(ctx, backoff(tailMinPause, tailMaxPause, p.n-1))
}
