package vat

import (
	"context"
	"errors"
	"runtime/debug"

	"github.com/sharevat/sharevat"
)

// guard runs one handler: it turns a panic into an internal error for
// this call only, and translates the handler's error for the wire.
func (v *Vat) guard(ctx context.Context, method string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			v.log.Error("panic in handler", "method", method, "panic", r, "stack", string(debug.Stack()))
			err = sharevat.ErrInternal
		}
	}()
	return v.public(ctx, method, fn())
}

// errCancelled is the answer to a call its caller cancelled.
var errCancelled = sharevat.Errorf(sharevat.EUnavailable, "call cancelled")

// public translates err into what a peer may see: domain errors pass
// (their text is "code: message"); cancellation becomes unavailable;
// anything else is logged in full and sent as "internal: internal error".
func (v *Vat) public(ctx context.Context, method string, err error) error {
	var de *sharevat.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		return de
	case ctx.Err() != nil:
		return errCancelled
	default:
		v.log.Error("internal error", "method", method, "err", err)
		return sharevat.ErrInternal
	}
}
