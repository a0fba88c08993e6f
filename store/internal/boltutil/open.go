package boltutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/sharevat/sharevat"
)

// ErrMoved says that while Check (or Open) waited for a file's lock,
// another process replaced the file at the path (a compaction renames a
// new file over it) or removed it: the file it locked is no longer the
// one at the path. It is not damage; open the path again.
var ErrMoved = errors.New("the file was replaced at its path while waiting for its lock")

// DamagedError says a file cannot be opened because it is empty or
// damaged. Its text is the one line an operator needs; errors.Is matches
// ErrCorrupt and sharevat.ErrorCode gives ECorrupt.
type DamagedError struct {
	Kind   string // "data", "outbox"
	Path   string
	Empty  bool   // the file is 0 bytes long
	Detail string // what the check found (not for Empty)
}

func (e *DamagedError) Error() string {
	if e.Empty {
		return fmt.Sprintf("the %s file %s is empty (0 bytes): it was lost or truncated; restore it from a backup, or move it aside to start afresh", e.Kind, e.Path)
	}
	return fmt.Sprintf("the %s file %s is damaged: %s; restore it from a backup", e.Kind, e.Path, e.Detail)
}

// Unwrap makes the error ErrCorrupt and ECorrupt.
func (e *DamagedError) Unwrap() []error {
	return []error{ErrCorrupt, sharevat.Errorf(sharevat.ECorrupt, "%s", e.Error())}
}

// Open opens the bbolt file at path read-write with opts, refusing with a
// *DamagedError a file that is empty or fails the structural check
// (Check); kind names the file in errors. A missing file is created
// whole: it appears at path only once bbolt has written its first pages,
// so a file at path is never legitimately empty. A lock wait that times
// out returns bbolt's berrors.ErrTimeout, for the caller to word.
func Open(path, kind string, opts bbolt.Options) (*bbolt.DB, error) {
	return open(path, kind, opts, Check)
}

// OpenQuick is Open with QuickCheck instead of Check: its cost grows
// with the file's free pages, not its size, once bbolt persists the
// freelist (opts.NoFreelistSync false; a file written without it gets
// the full walk once, and its freelist persisted by this open). What it
// leaves unread is checked as it is read, and in full by Check on demand.
func OpenQuick(path, kind string, opts bbolt.Options) (*bbolt.DB, error) {
	return open(path, kind, opts, QuickCheck)
}

func open(path, kind string, opts bbolt.Options, check func(string, string, time.Duration) error) (*bbolt.DB, error) {
	if err := ensureFile(path, kind, opts); err != nil {
		return nil, err
	}
	if err := check(path, kind, opts.Timeout); err != nil {
		return nil, err
	}
	var bdb *bbolt.DB
	err := Guard(func() (err error) {
		bdb, err = bbolt.Open(path, 0o600, &opts)
		return err
	})
	return bdb, openError(path, kind, err)
}

// ensureFile refuses an empty file at path and creates a missing one
// under another name, linking it into place once bbolt has initialized
// it (and syncing the directory).
func ensureFile(path, kind string, opts bbolt.Options) error {
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.Size() == 0:
		return &DamagedError{Kind: kind, Path: path, Empty: true}
	case err == nil:
		return nil
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("open %s: %w", path, err)
	}
	tmp := fmt.Sprintf("%s.%d.new", path, os.Getpid())
	defer os.Remove(tmp)
	bdb, err := bbolt.Open(tmp, 0o600, &opts)
	if err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := bdb.Close(); err != nil {
		return fmt.Errorf("create %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return syncDir(filepath.Dir(path))
}

// openError words an error of bbolt.Open or of the first transaction:
// a lock timeout passes as it is, anything else means the file is
// damaged.
func openError(path, kind string, err error) error {
	var pe *PanicError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, berrors.ErrTimeout):
		return err
	case errors.As(err, &pe):
		return &DamagedError{Kind: kind, Path: path, Detail: fmt.Sprint(pe.Value)}
	case IsDiskFull(err):
		return fmt.Errorf("open %s: %w", path, err)
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return &DamagedError{Kind: kind, Path: path, Detail: err.Error()}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
