package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"sharevat"
)

// Tail follows the share behind s from cursor from, for as long as ctx
// lasts: it subscribes through s's Reader and hands every op after from
// to handler, one at a time, in cursor order, each exactly once — across
// reconnects. When the subscription dies of a transport error, Tail
// reports it to s (Session.Fail) and resubscribes from the last cursor
// handler got; Session.Share redials with backoff.
//
// Tail returns ctx.Err() when ctx ends; the handler's error when it
// fails; or a permanent error (IsPermanent: revoked, unauthorized,
// permission denied, ...) as soon as it sees one, without another redeem.
// When Tail returns, handler is not running and will not be called again.
//
// Tail runs handler on a goroutine of the connection, never concurrently
// with itself.
func Tail(ctx context.Context, s *Session, from sharevat.Cursor, handler func(sharevat.Entry) error) error {
	t := &tailer{s: s, handler: handler}
	t.last.Store(uint64(from))
	var pause retryPause
	for {
		start, before := time.Now(), t.last.Load()
		err := t.follow(ctx)
		var he *handlerError
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.As(err, &he):
			return he.err
		case IsPermanent(err):
			return err
		}
		if t.last.Load() > before || time.Since(start) > tailStable {
			pause.reset()
		}
		if err := pause.wait(ctx); err != nil {
			return err
		}
	}
}

// tailer is one Tail's state. last is written by the handler's goroutine
// and read by Tail's between subscriptions.
type tailer struct {
	s       *Session
	handler func(sharevat.Entry) error
	last    atomic.Uint64
}

// follow runs one subscription until it ends or ctx does, and returns
// why it ended (nil for a normal end by the server).
func (t *tailer) follow(ctx context.Context) error {
	sh, err := t.s.Share(ctx)
	if err != nil {
		return err
	}
	sub, err := t.subscribe(ctx, sh)
	if err != nil {
		t.s.Fail(sh, err)
		return err
	}
	select {
	case <-sub.Done():
	case <-ctx.Done():
		sub.Close()
		<-sub.Done()
		return ctx.Err()
	}
	err = sub.Err()
	if !errors.As(err, new(*handlerError)) {
		t.s.Fail(sh, err)
	}
	return err
}

func (t *tailer) subscribe(ctx context.Context, sh *Share) (*Subscription, error) {
	rd, err := sh.Reader(ctx)
	if err != nil {
		return nil, err
	}
	defer rd.Release() // the subscription does not need it
	return rd.Subscribe(ctx, sharevat.Cursor(t.last.Load()), t.deliver)
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
	d := min(tailMinPause<<min(p.n-1, 16), tailMaxPause)
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
