package webvat

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"capnproto.org/go/capnp/v3/exc"

	"sharevat"
	"sharevat/capnweb"
	"sharevat/wire"
)

// webError turns the error of a call into what the peer sees: an Error
// whose message is "<code>: <message>" (the vat's reason, without the
// Cap'n Proto method prefix) and whose code property is the code.
// A token-shaped string in the message (the vat quotes a bad id, and a
// caller may pass a token where an id belongs) loses its secret.
func webError(err error) *capnweb.Error {
	de := domainError(err)
	msg := tokenPattern.ReplaceAllString(de.Error(), "${1}…")
	return &capnweb.Error{Type: "Error", Message: msg, Props: capnweb.NewObject().Set("code", string(de.Code))}
}

// tokenPattern matches a token (schema/sharevat.capnp, "Tokens"); group
// 1 is its public part, the grant id.
var tokenPattern = regexp.MustCompile(`(svt1_[a-z2-7]{24}_)[A-Za-z0-9_-]{43}`)

// domainError classifies err as the Go client does (client/errors.go):
// a domain error passes; an exception whose reason is "code: message"
// becomes that error; a lost connection or a cancelled call is
// unavailable; anything else is internal, its text never shown (it could
// hold anything).
func domainError(err error) *sharevat.Error {
	var de *sharevat.Error
	if errors.As(err, &de) {
		return de
	}
	if de, e := wire.ServerError(err); e != nil {
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

// notFunction is capnweb's answer to a call of a method the object does
// not have. The method is quoted only when it is name-shaped and short
// (capnweb.SafeName): a token, or its secret, pasted as a method name is
// never repeated, not even in part.
func notFunction(method string) capnweb.Answer {
	return capnweb.Returning(nil, &capnweb.Error{Type: "TypeError", Message: "'" + capnweb.SafeName(method) + "' is not a function."})
}

// failed answers err at once, as the peer sees it.
func failed(err error) capnweb.Answer { return capnweb.Returning(nil, webError(err)) }

// isNotFunction reports whether err is the TypeError capnweb answers for
// a call of something that is not a function (a property the peer's
// object lacks, or a bare function asked for a property).
func isNotFunction(err error) bool {
	var e *capnweb.Error
	return errors.As(err, &e) && e.Type == "TypeError" && strings.Contains(e.Message, "is not a function")
}
