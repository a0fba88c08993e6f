// Package boltutil holds what the bbolt-backed stores (store/bolt, the
// vat's data file, and store/outbox, the client's outbox file) do alike:
// translating bbolt errors and checking a file's format version.
package boltutil

import (
	"errors"
	"fmt"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"sharevat"
)

// Wrap passes domain errors through, turns a closed file into
// EUnavailable ("<what> is closed"), and wraps anything else as
// "<prefix>: <op>: <err>".
func Wrap(prefix, what, op string, err error) error {
	var de *sharevat.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		return de
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return sharevat.Errorf(sharevat.EUnavailable, "%s is closed", what)
	}
	return fmt.Errorf("%s: %s: %w", prefix, op, err)
}

// CheckFormat records version under key in b on a new file, and fails on
// a file of another version (what names the file kind in the error).
func CheckFormat(b *bbolt.Bucket, key []byte, version byte, what string) error {
	switch v := b.Get(key); {
	case v == nil:
		return b.Put(key, []byte{version})
	case len(v) != 1 || v[0] != version:
		return fmt.Errorf("unsupported %s format %v (this build reads version %d)", what, v, version)
	}
	return nil
}
