package boltutil

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// Check is the full structural check Open runs before it opens a file
// for writing (OpenQuick runs QuickCheck instead), and the offline check
// (sharevat check) starts with. bbolt itself panics on a damaged file,
// some of it on its own goroutines where no caller can recover (the
// freelist rebuild at open, for a file without a persisted freelist,
// walks every page on one), so Check first looks at the file read-only,
// on the calling goroutine, under Guard: bbolt's own meta page checks
// (magic, version, checksum), the file holding every page the meta page
// counts, and a walk of every bucket, key and value, which reaches every
// branch, leaf and overflow page in use. A problem is returned as a
// *DamagedError; a lock timeout as bbolt's ErrTimeout. The walk reads
// the whole file: as much as bbolt's freelist rebuild does.
//
// The file is checked only once its (shared) lock is held, and only if
// it is still the file at path: a holder that compacts renames a new
// file over path, and the old one, which the wait ended up locking, is
// no longer the outbox (its size is not the size at path). That case is
// ErrMoved, for the caller to open path again; it is never damage.
func Check(path, kind string, timeout time.Duration) error {
	return check(path, kind, timeout, false)
}

// QuickCheck is Check in time proportional to the file's free pages and
// top-level buckets, not its size, for a file whose freelist bbolt
// persisted (and so does not rebuild at open): the meta pages, the file
// holding every page the meta page counts, the freelist (readFreelist:
// a damaged one would hand live pages out for reuse), and the root page
// and every top-level bucket's root page, first and last leaf (none of
// them free). Damage anywhere else is met by the transaction that reads
// it (Guard, and the stores' own checks of what they serve) or by a full
// Check. A file without a persisted freelist, which bbolt rebuilds at
// open by walking every page on a goroutine of its own, gets the full
// walk first, as Check does.
func QuickCheck(path, kind string, timeout time.Duration) error {
	return check(path, kind, timeout, true)
}

func check(path, kind string, timeout time.Duration, quick bool) error {
	pinned, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("open %s: %w", path, ErrMoved) // removed since it was made
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer pinned.Close()
	var bdb *bbolt.DB
	err = Guard(func() (err error) {
		bdb, err = bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: timeout})
		return err
	})
	if err != nil {
		return openError(path, kind, err)
	}
	defer bdb.Close()
	fi, err := heldFile(pinned, path)
	if err != nil {
		return err
	}
	err = View(bdb, func(tx *bbolt.Tx) error {
		if need := tx.Size(); need > fi.Size() {
			return fmt.Errorf("%w: the file is %d bytes but its pages need %d (cut short?)", ErrCorrupt, fi.Size(), need)
		}
		if quick {
			return quickWalk(tx, pinned, bdb.Info().PageSize)
		}
		return walk(tx.Cursor())
	})
	if err != nil {
		return damaged(path, kind, err)
	}
	return nil
}

// heldFile returns the size and identity of pinned, the file opened at
// path before its lock was taken, if path still names it: path only ever
// gets a new file by a rename, so the file bbolt opened (after pinned)
// and locked is then pinned too. Otherwise it returns ErrMoved.
func heldFile(pinned *os.File, path string) (os.FileInfo, error) {
	held, err := pinned.Stat()
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	now, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) || err == nil && !os.SameFile(held, now) {
		return nil, fmt.Errorf("open %s: %w", path, ErrMoved)
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return held, nil
}

// damaged turns a failed check into a *DamagedError.
func damaged(path, kind string, err error) error {
	if pe, ok := err.(*PanicError); ok {
		return &DamagedError{Kind: kind, Path: path, Detail: fmt.Sprint(pe.Value)}
	}
	return &DamagedError{Kind: kind, Path: path, Detail: err.Error()}
}

// walk visits every key and value under c, descending into nested
// buckets, and touches the first and last byte of every value so that
// every overflow page is reached.
func walk(c *bbolt.Cursor) error {
	var sink byte
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if v == nil {
			if b := c.Bucket().Bucket(k); b != nil {
				if err := walk(b.Cursor()); err != nil {
					return err
				}
			}
			continue
		}
		if len(v) > 0 {
			sink ^= v[0] ^ v[len(v)-1]
		}
	}
	runtime.KeepAlive(sink) // the reads must happen
	return nil
}

// quickWalk is QuickCheck's look at an open file: the freelist and the
// top-level buckets, or the whole walk when the freelist is not
// persisted.
func quickWalk(tx *bbolt.Tx, f *os.File, pageSize int) error {
	m, err := readMeta(f, pageSize)
	if err != nil {
		return err
	}
	if m.freelist == noFreelist {
		return walk(tx.Cursor())
	}
	free, err := readFreelist(f, pageSize, m)
	if err != nil {
		return err
	}
	if m.root < 2 || m.root >= m.pgid || isFree(free, m.root) {
		return fmt.Errorf("%w: the root page %d is free or outside the file", ErrCorrupt, m.root)
	}
	return tx.ForEach(func(name []byte, b *bbolt.Bucket) error {
		if root := uint64(b.Root()); root != 0 && (root < 2 || root >= m.pgid || isFree(free, root)) {
			return fmt.Errorf("%w: bucket %q's root page %d is free or outside the file", ErrCorrupt, name, root)
		}
		c := b.Cursor()
		c.First()
		c.Last()
		return nil
	})
}
