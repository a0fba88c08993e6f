package client

import (
	"strings"

	"capnproto.org/go/capnp/v3/exc"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/wire"
)

// IsPermanent reports whether err will not go away by retrying: the token
// is unauthorized, revoked or lacks the right, or the request is invalid.
// EUnavailable is not permanent: a server whose store is down answers a
// redeem with it, and the token may well be valid.
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
	de, e := wire.ServerError(err)
	if e == nil {
		return err
	}
	if de != nil {
		return de
	}
	if e.Type == exc.Disconnected {
		return sharevat.Errorf(sharevat.EUnavailable, "connection lost: %s", e.Cause.Error())
	}
	return err
}

// isNullClient reports go-capnp's rare "call on null client" on a first
// call after Bootstrap (docs/design.md §10); such a call never reached the
// server and is safe to retry.
func isNullClient(err error) bool {
	return err != nil && strings.Contains(err.Error(), "call on null client")
}
