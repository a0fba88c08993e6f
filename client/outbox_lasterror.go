package client

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/sharevat/sharevat"
)

// stopped records why a flush stopped as the outbox's last error
// (Status.LastError) and returns err. A redeem the server refused says
// so ("ws://…/rpc refused the token: unauthorized: …"). When ctx ended,
// err only says so; what is recorded then is the failure that kept the
// batch from being acked until then (gaveUp). sendErr is the batch's
// last failed send on a connection that redeemed fine, or nil.
func (o *Outbox) stopped(ctx context.Context, r *Redeemer, sendErr, err error) error {
	msg := err.Error()
	if dial, fail := r.lastFailure(); fail == err && !dial && IsPermanent(err) {
		msg = shownURL(r.url) + " refused the token: " + msg
	}
	if ctx.Err() != nil {
		msg = gaveUp(ctx, r, sendErr)
	}
	if msg != "" {
		o.db.SetError(msg, time.Now())
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return &endedError{err: err, ctx: cerr}
	}
	return err
}

// endedError is the error of a flush its context ended during a dial or
// a send: it reads as that failure, and errors.Is finds both it and the
// context's error (context.DeadlineExceeded, context.Canceled), however
// the failure was worded.
type endedError struct{ err, ctx error }

func (e *endedError) Error() string   { return e.err.Error() }
func (e *endedError) Unwrap() []error { return []error{e.err, e.ctx} }

// gaveUp says, in one sentence without the token, why a flush that ctx
// ended had not delivered its batch: the Redeemer's last failed dial or
// redeem, else sendErr, else (at a deadline) that the server did not
// answer. A flush canceled with nothing failed is no failure: "".
func gaveUp(ctx context.Context, r *Redeemer, sendErr error) string {
	deadline := errors.Is(ctx.Err(), context.DeadlineExceeded)
	why := "; gave up: the flush was canceled"
	if deadline {
		why = "; gave up at the deadline"
	}
	server := shownURL(r.url)
	dial, fail := r.lastFailure()
	switch {
	case fail != nil && dial:
		return "cannot reach " + server + ": " + dialReason(fail) + why
	case fail != nil:
		return server + " did not redeem the token: " + fail.Error() + why
	case sendErr != nil:
		return "sending to " + server + " failed: " + sendErr.Error() + why
	case deadline:
		return "no answer from " + server + " before the deadline"
	}
	return ""
}

// shownURL is raw without any password in it.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// dialReason is the gist of a failed Dial: "connection refused" for
// "unavailable: sharevat: dial ws://…: dial tcp …: connect: connection
// refused", the server's answer for a refused upgrade.
func dialReason(err error) string {
	msg := err.Error()
	if se := (*sharevat.Error)(nil); errors.As(err, &se) {
		msg = se.Message
	}
	msg = strings.TrimPrefix(msg, "sharevat: ")
	if strings.Contains(msg, "dial tcp") {
		if i := strings.LastIndex(msg, ": "); i >= 0 {
			return msg[i+2:]
		}
	}
	if rest, ok := strings.CutPrefix(msg, "dial "); ok {
		if _, reason, found := strings.Cut(rest, ": "); found {
			return reason
		}
	}
	return msg
}
