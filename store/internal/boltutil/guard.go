package boltutil

import (
	"fmt"
	"runtime/debug"

	bbolt "go.etcd.io/bbolt"
)

// PanicError is a panic recovered inside a transaction: bbolt panics (or
// faults) on a damaged page, which may be reached long after the file was
// opened. It wraps ErrCorrupt; Stack is for the log.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("%v: panic in a transaction (a damaged page?): %v", ErrCorrupt, e.Value)
}

// Unwrap makes errors.Is(e, ErrCorrupt) hold.
func (e *PanicError) Unwrap() error { return ErrCorrupt }

// Guard runs fn and turns a panic, or a memory fault (an access to a page
// beyond the end of a truncated file), into a *PanicError.
func Guard(fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = &PanicError{Value: r, Stack: debug.Stack()}
		}
	}()
	return fn()
}

// View runs fn in a read-only transaction of bdb, under Guard.
func View(bdb *bbolt.DB, fn func(*bbolt.Tx) error) error {
	return Guard(func() error { return bdb.View(fn) })
}

// Update runs fn in a read-write transaction of bdb, under Guard. A
// panic in fn rolls the transaction back (bbolt's Update defers the
// rollback), so nothing of it is committed.
func Update(bdb *bbolt.DB, fn func(*bbolt.Tx) error) error {
	return Guard(func() error { return bdb.Update(fn) })
}
