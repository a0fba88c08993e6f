package exportfile

import (
	"errors"
	"fmt"
)

// FormatError is an input that is not a well-formed export: the command
// line reports it as a usage error (exit 2). Msg names where.
type FormatError struct{ Msg string }

func (e *FormatError) Error() string { return e.Msg }

// formatf returns a *FormatError.
func formatf(format string, args ...any) error {
	return &FormatError{Msg: fmt.Sprintf(format, args...)}
}

// ChangedError is an input that changed after it was checked: its
// second reading (Source.Again) differs from its first.
type ChangedError struct{ Err error }

func (e *ChangedError) Error() string {
	return fmt.Sprintf("the input changed after it was checked (%v)", e.Err)
}

func (e *ChangedError) Unwrap() error { return e.Err }

// Changed marks err, from reading the input again, as a change (once).
func Changed(err error) error {
	var ce *ChangedError
	if errors.As(err, &ce) {
		return err
	}
	return &ChangedError{Err: err}
}
