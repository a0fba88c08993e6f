package capnweb

import (
	"errors"
	"strings"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/sturdyref"
	"github.com/sharevat/sharevat/wire"
)

// webError turns the error of a call into what the peer sees: an Error
// whose message is "<code>: <message>" (the vat's reason, without the
// Cap'n Proto method prefix) and whose code property is the code.
// A token-shaped string in the message (the vat quotes a bad id, and a
// caller may pass a token where an id belongs) loses its secret.
func webError(err error) *capnweb.Error {
	de := wire.DomainError(err)
	msg := sturdyref.RedactText(de.Error())
	return &capnweb.Error{Type: "Error", Message: msg, Props: capnweb.NewObject().Set("code", string(de.Code))}
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
