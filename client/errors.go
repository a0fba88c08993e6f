package client

import (
	"errors"
	"strings"

	"capnproto.org/go/capnp/v3/exc"

	"sharevat"
)

// IsPermanent reports whether err will not go away by retrying: the token
// is unauthorized, revoked or lacks the right, or the request is invalid.
func IsPermanent(err error) bool {
	switch sharevat.ErrorCode(err) {
	case sharevat.EUnauthorized, sharevat.ERevoked, sharevat.EPermissionDenied,
		sharevat.EInvalid, sharevat.ETooLarge, sharevat.ENotFound:
		return true
	}
	return false
}

// fromWire turns an error of a Cap'n Proto call into a domain error: a
// server exception "code: message" becomes that *sharevat.Error; a lost
// connection becomes EUnavailable; anything else is returned as it is.
func fromWire(err error) error {
	if err == nil {
		return nil
	}
	e := innermost(err)
	if e == nil {
		return err
	}
	if de := sharevat.ParseError(reason(e)); de != nil {
		return de
	}
	if e.Type == exc.Disconnected {
		return sharevat.Errorf(sharevat.EUnavailable, "connection lost: %s", e.Cause.Error())
	}
	return err
}

// reason returns the text the server sent: go-capnp wraps it with the
// method name ("schema.capnp:Iface.method: reason"), so take the error at
// the bottom of the chain.
func reason(e *exc.Exception) string {
	err := e.Cause
	for next := errors.Unwrap(err); next != nil; next = errors.Unwrap(err) {
		err = next
	}
	return err.Error()
}

// innermost returns the deepest Cap'n Proto exception in err's chain: the
// one carrying the reason the server sent (go-capnp wraps it in another
// exception annotated with the method name).
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

// isNullClient reports go-capnp's rare "call on null client" on a first
// call after Bootstrap (docs/design.md §10); such a call never reached the
// server and is safe to retry.
func isNullClient(err error) bool {
	return err != nil && strings.Contains(err.Error(), "call on null client")
}
