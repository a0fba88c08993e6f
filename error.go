package sharevat

import (
	"errors"
	"fmt"
	"strings"
)

// Code is a wire-stable error code. Codes travel to peers inside Cap'n Proto
// exception reasons as "code: message". Never rename or remove a code once
// released; add new ones at the end of the list below.
type Code string

// The error codes of docs/design.md §9.
const (
	// EUnauthorized: a token could not be redeemed (unknown, wrong secret,
	// revoked, expired, stale epoch). Every failure of the token itself
	// looks the same; a redeem the store could not decide is EUnavailable.
	EUnauthorized Code = "unauthorized"
	// EPermissionDenied: the capability is valid but lacks the right.
	EPermissionDenied Code = "permissionDenied"
	// ERevoked: the grant behind a live capability was revoked, expired or
	// fenced off by an epoch bump.
	ERevoked Code = "revoked"
	// EInvalid: the request is malformed or out of range.
	EInvalid Code = "invalid"
	// EConflict: the request conflicts with the current state.
	EConflict Code = "conflict"
	// ENotFound: the named thing does not exist (or is not visible).
	ENotFound Code = "notFound"
	// ETooLarge: the request exceeds a configured limit.
	ETooLarge Code = "tooLarge"
	// EUnavailable: the service cannot answer now (its store cannot be
	// reached, its disk is full, it is shutting down); retry later.
	EUnavailable Code = "unavailable"
	// EInternal: a bug or an unexpected failure; details are only logged.
	EInternal Code = "internal"
	// ECorrupt: stored data failed its integrity check; the operator must
	// restore from a backup. Retrying does not help. Details (which share,
	// which cursor) are only logged.
	ECorrupt Code = "corrupt"
	// ECompacted: a read or subscription asked for ops a compaction
	// dropped; the message names the earliest cursor still readable. Take
	// the snapshot and follow from that cursor.
	ECompacted Code = "compacted"
)

// Codes lists every code, in release order.
var Codes = []Code{
	EUnauthorized, EPermissionDenied, ERevoked, EInvalid, EConflict,
	ENotFound, ETooLarge, EUnavailable, EInternal, ECorrupt, ECompacted,
}

// Sentinel errors, one per code, for errors.Is.
var (
	ErrUnauthorized     = &Error{Code: EUnauthorized, Message: "unauthorized"}
	ErrPermissionDenied = &Error{Code: EPermissionDenied, Message: "permission denied"}
	ErrRevoked          = &Error{Code: ERevoked, Message: "revoked"}
	ErrInvalid          = &Error{Code: EInvalid, Message: "invalid"}
	ErrConflict         = &Error{Code: EConflict, Message: "conflict"}
	ErrNotFound         = &Error{Code: ENotFound, Message: "not found"}
	ErrTooLarge         = &Error{Code: ETooLarge, Message: "too large"}
	ErrUnavailable      = &Error{Code: EUnavailable, Message: "unavailable"}
	ErrInternal         = &Error{Code: EInternal, Message: "internal error"}
	ErrCorrupt          = &Error{Code: ECorrupt, Message: "stored data failed its integrity check; the operator must restore from a backup"}
	ErrCompacted        = &Error{Code: ECompacted, Message: "compacted"}
)

// ErrCannotCheckToken is a vat's answer to a redeem its store could not
// decide (the database cannot be reached, the disk is full): the token
// may well be valid; retry later. It is EUnavailable to errors.Is; its
// Message tells it from other unavailable answers (IsCannotCheckToken).
var ErrCannotCheckToken = &Error{Code: EUnavailable,
	Message: "cannot check the token now (the server's store is unavailable); retry later"}

// IsCannotCheckToken reports whether err is ErrCannotCheckToken, as
// answered by a vat (a peer sees it as its wire form).
func IsCannotCheckToken(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == EUnavailable && e.Message == ErrCannotCheckToken.Message
}

// ErrAdminAsShare is a vat's answer to the server's admin token
// redeemed as a share token. Only the admin token's holder hears it (the
// secret is verified first), so it tells a guesser nothing; every other
// failed redeem answers alike. It is EUnauthorized to errors.Is; its
// Message tells it apart (IsAdminAsShare).
var ErrAdminAsShare = &Error{Code: EUnauthorized,
	Message: "this is the server's admin token, not a share token: it can only create shares; " +
		"use a share's token (the owner token 'sharevat create' printed, or one from 'sharevat grant')"}

// IsAdminAsShare reports whether err is ErrAdminAsShare, as answered by
// a vat (a peer sees it as its wire form).
func IsAdminAsShare(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == EUnauthorized && e.Message == ErrAdminAsShare.Message
}

// Error is the domain error. Its Message is safe to show to a peer: it must
// never hold a secret or internal detail.
type Error struct {
	Code    Code
	Message string
}

// Errorf returns an *Error with the given code and formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Error formats the error as "code: message", the wire form.
func (e *Error) Error() string {
	return string(e.Code) + ": " + e.Message
}

// Is reports whether target is an *Error with the same code, so that
// errors.Is(err, ErrRevoked) matches any revoked error.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code
}

// ErrorCode returns the code of err: the code of the first *Error in its
// chain, "" for nil, and EInternal for anything else.
func ErrorCode(err error) Code {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EInternal
	}
}

// ErrorMessage returns the peer-safe message of err. Errors that are not
// *Error yield the fixed text "internal error".
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	default:
		return ErrInternal.Message
	}
}

// PublicError turns any error into the *Error that may be shown to a peer.
// Domain errors pass through; anything else becomes ErrInternal.
func PublicError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return ErrInternal
}

// ParseError reverses Error.Error: it turns a wire reason "code: message"
// back into an *Error. A reason without a known code yields nil.
func ParseError(reason string) *Error {
	for _, c := range Codes {
		if msg, ok := strings.CutPrefix(reason, string(c)+": "); ok {
			return &Error{Code: c, Message: msg}
		}
	}
	return nil
}
