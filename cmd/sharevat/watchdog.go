package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"
)

// Long client commands (read, export, tail, snapshot, compact) are bounded
// by progress, not by a wall clock: --timeout is how long they may go
// without receiving a page of ops, an op or a compaction step. A log of a
// million ops takes minutes to read and never times out while it moves;
// a server that stops answering is given up on after --timeout.

// stallError says a command made no progress for its --timeout. It is a
// deadline (errors.Is context.DeadlineExceeded), so what words a timeout
// (gaveUp) words it too.
type stallError struct{ d time.Duration }

func (e *stallError) Error() string {
	return fmt.Sprintf("gave up: no progress for --timeout %s (the server stopped answering)", e.d)
}

func (e *stallError) Unwrap() error { return context.DeadlineExceeded }

// watchdog cancels its context, with a *stallError, once progress has
// not been called for d. A nil *watchdog (no --timeout) does nothing.
type watchdog struct {
	d     time.Duration
	timer *time.Timer
}

// withWatchdog returns ctx bounded by a watchdog of d (none if d <= 0)
// and the function that stops it.
func withWatchdog(ctx context.Context, d time.Duration) (context.Context, *watchdog, context.CancelFunc) {
	if d <= 0 {
		return ctx, nil, func() {}
	}
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{d: d}
	w.timer = time.AfterFunc(d, func() { cancel(&stallError{d}) })
	return ctx, w, func() { w.timer.Stop(); cancel(context.Canceled) }
}

// progress says something was received: the command has d again.
func (w *watchdog) progress() {
	if w != nil {
		w.timer.Reset(w.d)
	}
}

// watched is a client command's body bounded by a watchdog.
type watched func(ctx context.Context, env *Env, w *watchdog) error

// runWatched wraps a long client command's body, as run does, but bounds
// it with a watchdog of --timeout instead of a deadline; an error caused
// by the watchdog is the *stallError.
func (c *clientFlags) runWatched(fs *pflag.FlagSet, body watched) runner {
	f := fs.Lookup("timeout")
	f.Usage = "give up after this long without progress (a page, an op, a step received)"
	return func(ctx context.Context, env *Env) error {
		c.resolve(env)
		ctx, w, stop := withWatchdog(ctx, c.timeout)
		defer stop()
		return stalled(ctx, body(ctx, env, w))
	}
}

// stalled returns the *stallError for err if the watchdog ended ctx,
// unless err already says why better: a server that could not check the
// token (which names the --timeout it gave up after).
func stalled(ctx context.Context, err error) error {
	var s *stallError
	if err != nil && errors.As(context.Cause(ctx), &s) && !errors.As(err, &s) && !isServerUnavailable(err) {
		return s
	}
	return err
}
