package outbox

import (
	"errors"
	"fmt"
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
// sharevat.EUnavailable. An empty (0-byte) or damaged file is refused,
// and left as it is, with one line that names it (a
// *boltutil.DamagedError, code ECorrupt): an outbox file appears at path
// only once it is whole, so an empty one lost its ops.
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.KeepDone <= 0 {
		opts.KeepDone = DefaultKeepDone
	}
	bdb, err := boltutil.Open(path, "outbox", bbolt.Options{Timeout: opts.LockTimeout})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, sharevat.Errorf(sharevat.EUnavailable,
			"outbox %s is in use by another sharevat process (waited %s)", path, opts.LockTimeout)
	}
	var damaged *boltutil.DamagedError
	if errors.As(err, &damaged) {
		return nil, damaged // one line that says it all
	}
	if err != nil {
		return nil, fmt.Errorf("outbox: %w", err)
	}
	db := &DB{path: path, bdb: bdb, keepDone: opts.KeepDone}
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
	return boltutil.CheckFormat(meta, keyFormat, formatVersion, "outbox")
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

// view runs fn in a read-only transaction; a panic in it (a damaged
// page) is an error.
func (db *DB) view(op string, fn func(*bbolt.Tx) error) error {
	return db.wrap(op, boltutil.View(db.bdb, fn))
}

// update runs fn in a read-write transaction, committed durably; a panic
// in it rolls it back and is an error.
func (db *DB) update(op string, fn func(*bbolt.Tx) error) error {
	return db.wrap(op, boltutil.Update(db.bdb, fn))
}

// wrap translates a bbolt error for op (boltutil.File.Wrap); a damaged
// page names the file.
func (db *DB) wrap(op string, err error) error {
	err = outboxFile.Wrap(op, err)
	if errors.Is(err, boltutil.ErrCorrupt) {
		return &boltutil.DamagedError{Kind: "outbox", Path: db.path, Detail: err.Error()}
	}
	return err
}

// outboxFile words the errors about the outbox file.
var outboxFile = boltutil.File{Prefix: "outbox", What: "outbox",
	DiskFull: "the disk holding the outbox is full; free some space and retry"}
