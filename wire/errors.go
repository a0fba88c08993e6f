package wire

import (
	"context"
	"errors"

	"capnproto.org/go/capnp/v3/exc"

	"github.com/sharevat/sharevat"
)

// ServerError returns the domain error a Cap'n Proto call's error
// carries: the reason of the deepest exception in err's chain (go-capnp
// wraps the server's exception in another, annotated with the method
// name), when it is "code: message"; else nil. The exception itself is
// returned too (nil when err holds none), for callers that classify
// other exceptions (a lost connection is exc.Disconnected).
func ServerError(err error) (*sharevat.Error, *exc.Exception) {
	e := innermost(err)
	if e == nil {
		return nil, nil
	}
	return sharevat.ParseError(reason(e)), e
}

// innermost returns the deepest Cap'n Proto exception in err's chain.
func innermost(err error) *exc.Exception {
	var found *exc.Exception
	for {
		var e *exc.Exception
		if !errors.As(err, &e) {
			return found
		}
		found, err = e, e.Cause
	}
}

// reason is the text at the bottom of an exception's cause chain: the
// server's "code: message", without go-capnp's method annotation.
func reason(e *exc.Exception) string {
	err := e.Cause
	if err == nil {
		return ""
	}
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	return err.Error()
}

// DomainError classifies the error of a call for a door that shows it to
// a peer (webvat, opencodeshare): a domain error passes; an exception
// whose reason is "code: message" becomes that error; a lost connection
// or a cancelled call is unavailable; anything else is internal, its
// text never shown (it could hold anything).
func DomainError(err error) *sharevat.Error {
	var de *sharevat.Error
	if errors.As(err, &de) {
		return de
	}
	if de, e := ServerError(err); e != nil {
		if de != nil {
			return de
		}
		if e.Type == exc.Disconnected {
			return sharevat.Errorf(sharevat.EUnavailable, "connection lost")
		}
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return sharevat.Errorf(sharevat.EUnavailable, "call cancelled")
	}
	return sharevat.ErrInternal
}
