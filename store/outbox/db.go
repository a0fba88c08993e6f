package outbox

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/internal/boltutil"
)

// formatVersion is the version of the on-disk layout (doc.go). Version 1
// had no checksums; Open upgrades it (upgradeV1).
const formatVersion = 2

var (
	bucketMeta    = []byte("meta")
	bucketPending = []byte("pending")
	bucketDone    = []byte("done")
	bucketFailed  = []byte("failed")
	bucketIDs     = []byte("ids")
	allBuckets    = [][]byte{bucketMeta, bucketPending, bucketDone, bucketFailed, bucketIDs}

	keyFormat = []byte("format")
	keyShare  = []byte("share")
	keyServer = []byte("server")
	keyHead   = []byte("head")
	keyError  = []byte("error")
)

// Defaults of Options.
const (
	DefaultLockTimeout = time.Second
	DefaultKeepDone    = 10_000
)

// Options tune Open; the zero value is fine.
type Options struct {
	// LockTimeout bounds the wait for the file's lock; 0 means
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// KeepDone is how many done records are kept for Results; 0 means
	// DefaultKeepDone. Failed records are not pruned.
	KeepDone int
}

// DB is one outbox file.
type DB struct {
	path        string
	keepDone    int
	lockTimeout time.Duration

	mu  sync.RWMutex // held for writing by Compact, which swaps bdb, and Close
	bdb *bbolt.DB
}

// Open opens (creating if needed, mode 0600) the outbox file at path. If
// another DB holds the file, Open fails after opts.LockTimeout with
// sharevat.EUnavailable. An empty (0-byte) or damaged file is refused,
// and left as it is, with one line that names it (a
// *boltutil.DamagedError, code ECorrupt): an outbox file appears at path
// only once it is whole, so an empty one lost its ops.
//
// A file that is mostly free pages is compacted (Compact) once open; a
// failed compaction leaves the file as it was and is not an error.
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.KeepDone <= 0 {
		opts.KeepDone = DefaultKeepDone
	}
	db, err := openLocked(path, opts, time.Now().Add(opts.LockTimeout))
	if err != nil {
		return nil, err
	}
	_ = os.Remove(compactPath(path)) // left by a crashed Compact
	_, _ = db.Compact()
	return db, nil
}

// openLocked opens path and locks the file that is at path once the lock
// is held. A Compact by another holder renames a new file over the one a
// waiter opened: the waiter then holds the lock of a file that is no
// longer at path, and tries again, until deadline. That holds for the
// structural check too (boltutil.ErrMoved): it checks a file only under
// its lock and only while it is at path, so a healthy outbox that another
// process compacts is never called damaged.
func openLocked(path string, opts Options, deadline time.Time) (*DB, error) {
	for {
		pinned, _ := os.Open(path) // nil for a file not made yet
		db, err := openFile(path, opts, max(time.Until(deadline), time.Millisecond))
		if errors.Is(err, boltutil.ErrMoved) { // compacted (or removed) by the holder while we waited
			closeFile(pinned)
			if time.Now().Before(deadline) {
				continue
			}
			return nil, inUse(path, opts)
		}
		if err != nil || pinned == nil {
			closeFile(pinned)
			return db, err
		}
		same, err := sameFile(pinned, path)
		closeFile(pinned)
		if same && err == nil {
			return db, nil
		}
		_ = db.Close()
		if err != nil {
			return nil, fmt.Errorf("outbox: open %s: %w", path, err)
		}
		if time.Now().After(deadline) {
			return nil, inUse(path, opts)
		}
	}
}

// inUse is the error of an Open that waited opts.LockTimeout in vain.
func inUse(path string, opts Options) error {
	return sharevat.Errorf(sharevat.EUnavailable,
		"outbox %s is in use by another sharevat process (waited %s)", path, opts.LockTimeout)
}

// sameFile reports whether f is the file now at path.
func sameFile(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

func closeFile(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}

// openFile opens the outbox file at path, waiting up to timeout for its
// lock.
func openFile(path string, opts Options, timeout time.Duration) (*DB, error) {
	bdb, err := boltutil.Open(path, "outbox", bbolt.Options{Timeout: timeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, inUse(path, opts)
	}
	var damaged *boltutil.DamagedError
	if errors.As(err, &damaged) {
		return nil, damaged // one line that says it all
	}
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	db := &DB{path: path, bdb: bdb, keepDone: opts.KeepDone, lockTimeout: opts.LockTimeout}
	if err := boltutil.Update(bdb, initBuckets); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("outbox: open %s: %w", path, err)
	}
	return db, nil
}

func initBuckets(tx *bbolt.Tx) error {
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	meta := tx.Bucket(bucketMeta)
	if v := meta.Get(keyFormat); len(v) == 1 && v[0] == 1 {
		return upgradeV1(tx)
	}
	return boltutil.CheckFormat(meta, keyFormat, formatVersion, "outbox")
}

// Path returns the file's path.
func (db *DB) Path() string { return db.path }

// Close closes the file, waiting for running transactions. Calls after
// Close fail with sharevat.EUnavailable.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.bdb.Close(); err != nil {
		return fmt.Errorf("outbox: close: %w", err)
	}
	return nil
}

// view runs fn in a read-only transaction; a panic in it (a damaged
// page) is an error.
func (db *DB) view(op string, fn func(*bbolt.Tx) error) error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.wrap(op, boltutil.View(db.bdb, fn))
}

// update runs fn in a read-write transaction, committed durably; a panic
// in it rolls it back and is an error.
func (db *DB) update(op string, fn func(*bbolt.Tx) error) error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.wrap(op, boltutil.Update(db.bdb, fn))
}

// wrap translates a bbolt error for op (boltutil.File.Wrap); a damaged
// page names the file.
func (db *DB) wrap(op string, err error) error {
	var d *DamagedRecordError
	if errors.As(err, &d) {
		d.Path = db.path
		return d
	}
	err = outboxFile.Wrap(op, err)
	if errors.Is(err, boltutil.ErrCorrupt) {
		return &boltutil.DamagedError{Kind: "outbox", Path: db.path, Detail: err.Error()}
	}
	return err
}

// outboxFile words the errors about the outbox file.
var outboxFile = boltutil.File{Prefix: "outbox", What: "outbox",
	DiskFull: "the disk holding the outbox is full; free some space and retry"}
