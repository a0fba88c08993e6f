package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
)

// A server whose store cannot be reached (its PostgreSQL is down, its
// disk full) answers a redeem with sharevat.ErrCannotCheckToken
// (unavailable): the token may well be valid. The commands retry it
// within --timeout and then say the server is unavailable — exit 1, never
// 3, and never advice to give up the token or its pending ops.

// Backoff between redeems the server could not check.
const (
	unavailableMinWait = 100 * time.Millisecond
	unavailableMaxWait = 2 * time.Second
)

// serverUnavailable is the error of a command that gave up on a server
// that could not check its token: it keeps cause's code (unavailable) and
// says what happened in plain words. timeout is the --timeout that ran
// out, 0 when the command was interrupted.
type serverUnavailable struct {
	server  string
	timeout time.Duration
	cause   error
}

func (e *serverUnavailable) Error() string {
	end := "interrupted"
	if e.timeout > 0 {
		end = "gave up after --timeout " + e.timeout.String()
	}
	return fmt.Sprintf("the server %s is unavailable: %s (%s)", e.server, sharevat.ErrorMessage(e.cause), end)
}

// gaveUp is the --timeout that ended ctx, or 0 if it was interrupted.
func (c *clientFlags) gaveUp(ctx context.Context) time.Duration {
	if errors.Is(context.Cause(ctx), context.DeadlineExceeded) { // a deadline or a watchdog
		return c.timeout
	}
	return 0
}

func (e *serverUnavailable) Unwrap() error { return e.cause }

// retryUnavailable runs try until it returns anything but
// ErrCannotCheckToken, waiting a growing backoff between attempts. When
// ctx ends first it returns a *serverUnavailable around the last answer.
func (c *clientFlags) retryUnavailable(ctx context.Context, try func() error) error {
	wait := unavailableMinWait
	for {
		err := try()
		if !sharevat.IsCannotCheckToken(err) {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return &serverUnavailable{server: c.server, timeout: c.gaveUp(ctx), cause: err}
		case <-t.C:
		}
		wait = min(2*wait, unavailableMaxWait)
	}
}

// isServerUnavailable reports whether err is, or ended in, a server that
// could not check the token.
func isServerUnavailable(err error) bool {
	var su *serverUnavailable
	return errors.As(err, &su) || sharevat.IsCannotCheckToken(err)
}
