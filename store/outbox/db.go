package outbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"sharevat"
	"sharevat/store/internal/boltutil"
)

// formatVersion is the version of the on-disk layout (doc.go).
const formatVersion = 1

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
	path     string
	bdb      *bbolt.DB
	keepDone int
}

// Open opens (creating if needed, mode 0600) the outbox file at path. If
// another DB holds the file, Open fails after opts.LockTimeout with
// sharevat.EUnavailable.
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.KeepDone <= 0 {
		opts.KeepDone = DefaultKeepDone
	}
	_, statErr := os.Stat(path)
	bdb, err := bbolt.Open(path, 0o600, &bbolt.Options{Timeout: opts.LockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, sharevat.Errorf(sharevat.EUnavailable,
			"outbox %s is in use by another sharevat process (waited %s)", path, opts.LockTimeout)
	}
	if err != nil {
		return nil, fmt.Errorf("outbox: open %s: %w", path, err)
	}
	db := &DB{path: path, bdb: bdb, keepDone: opts.KeepDone}
	if err := db.init(errors.Is(statErr, os.ErrNotExist)); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("outbox: open %s: %w", path, err)
	}
	return db, nil
}

// init creates the buckets, checks the format and, for a new file, syncs
// its directory so that the file itself survives a crash.
func (db *DB) init(created bool) error {
	if err := db.bdb.Update(initBuckets); err != nil {
		return err
	}
	if !created {
		return nil
	}
	return syncDir(filepath.Dir(db.path))
}

func initBuckets(tx *bbolt.Tx) error {
	for _, name := range allBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	meta := tx.Bucket(bucketMeta)
	return boltutil.CheckFormat(meta, keyFormat, formatVersion, "outbox")
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Path returns the file's path.
func (db *DB) Path() string { return db.path }

// Close closes the file, waiting for running transactions. Calls after
// Close fail with sharevat.EUnavailable.
func (db *DB) Close() error {
	if err := db.bdb.Close(); err != nil {
		return fmt.Errorf("outbox: close: %w", err)
	}
	return nil
}

// view runs fn in a read-only transaction.
func (db *DB) view(op string, fn func(*bbolt.Tx) error) error {
	return wrap(op, db.bdb.View(fn))
}

// update runs fn in a read-write transaction, committed durably.
func (db *DB) update(op string, fn func(*bbolt.Tx) error) error {
	return wrap(op, db.bdb.Update(fn))
}

// wrap translates a bbolt error for op (see boltutil.Wrap).
func wrap(op string, err error) error {
	return boltutil.Wrap("outbox", "outbox", op, err)
}
