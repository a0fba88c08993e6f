package main

import (
	"errors"
	"strings"
	"time"
	"unicode"

	"github.com/sharevat/sharevat"
)

// Helpers shared by the delegation commands (grant, grants, revoke,
// inspect) for showing times and peer-supplied text.

// stamp formats a time for people: RFC 3339 in UTC, to the second;
// none stands in for the zero time.
func stamp(t time.Time, none string) string {
	if t.IsZero() {
		return none
	}
	return t.UTC().Format(time.RFC3339)
}

// jsonTime formats a time for --json output: RFC 3339 in UTC, or null
// for the zero time.
func jsonTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339Nano)
	return &s
}

// printable makes text chosen by another party (a label, a title) safe
// for a terminal: control and other non-printing runes, tabs included,
// become '?', so no escape sequence reaches the screen.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return '?'
	}, s)
}

// orDash shows an empty string as "-".
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// errDeniedShown ends a command that already printed why the token is
// not valid: nothing more is printed, and the exit code is 3.
var errDeniedShown = errors.Join(errSilent, sharevat.ErrUnauthorized)
