// Package boltutil holds what the bbolt-backed stores (store/bolt, the
// vat's data file, and store/outbox, the client's outbox file) do alike:
// opening a file safely (refusing an empty or damaged one with one clear
// error instead of bbolt's panics; Open walks the whole file first,
// OpenQuick only its meta pages, freelist and top-level roots), running transactions that turn a
// panic on a damaged page into an error, translating bbolt and OS errors
// (a full disk becomes EUnavailable), and checking a file's format
// version.
package boltutil

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/core"
)

// ErrCorrupt marks stored data that failed a check: a value that cannot
// be decoded, a digest that does not match, a page bbolt panicked on.
// Callers wrap it with details (never secrets or op contents). It is
// core.ErrCorrupt, the mark store/pg's damaged records carry too.
var ErrCorrupt = core.ErrCorrupt

// File describes one kind of bbolt file for the errors about it.
type File struct {
	Prefix string // prefix of wrapped errors: "bolt", "outbox"
	What   string // what is closed: "store", "outbox"
	// DiskFull is the EUnavailable message when a write fails because
	// the disk (or quota, or file size limit) is full.
	DiskFull string
}

// Wrap passes domain errors through, turns a closed file into
// EUnavailable ("<what> is closed") and a full disk into EUnavailable
// (f.DiskFull), and wraps anything else as "<prefix>: <op>: <err>".
func (f File) Wrap(op string, err error) error {
	var de *sharevat.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &de):
		return de
	case errors.Is(err, berrors.ErrDatabaseNotOpen):
		return sharevat.Errorf(sharevat.EUnavailable, "%s is closed", f.What)
	case IsDiskFull(err):
		return &diskFull{msg: f.DiskFull, cause: fmt.Errorf("%s: %s: %w", f.Prefix, op, err)}
	}
	return fmt.Errorf("%s: %s: %w", f.Prefix, op, err)
}

// diskFull is EUnavailable to errors.As and sharevat.ErrorCode, and keeps
// the OS error for the log.
type diskFull struct {
	msg   string
	cause error
}

func (e *diskFull) Error() string { return e.cause.Error() }

// Unwrap exposes the EUnavailable first, then the cause.
func (e *diskFull) Unwrap() []error {
	return []error{sharevat.Errorf(sharevat.EUnavailable, "%s", e.msg), e.cause}
}

// fullErrnos are the write failures that mean "no room": the disk, the
// user's quota, or the process's file size limit (RLIMIT_FSIZE).
var fullErrnos = []syscall.Errno{syscall.ENOSPC, syscall.EDQUOT, syscall.EFBIG}

// IsDiskFull reports whether err says the disk, a quota or the file size
// limit is exhausted. bbolt formats some OS errors with %s ("file resize
// error: …"), losing the errno, so the errno's text counts too.
func IsDiskFull(err error) bool {
	for _, n := range fullErrnos {
		if errors.Is(err, n) || strings.Contains(err.Error(), n.Error()) {
			return true
		}
	}
	return false
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
