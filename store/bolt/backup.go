package bolt

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt/wal"
	"github.com/sharevat/sharevat/store/internal/boltutil"
)

// Backup and BackupFile are bbolt's, not the root Store's: a byte copy
// of the data file is what this backend backs up, and it means nothing to
// another backend (a PostgreSQL store backs up with its own tools). A
// caller that holds a sharevat.Store asks for it with a type assertion
// on interface{ Backup(context.Context, io.Writer) (int64, error) }.

// Backup writes a consistent copy of the whole data file to w and
// returns its length: the file as one read transaction sees it, so
// writes that commit meanwhile (appends go on) are either wholly in the
// copy or not at all. The copy is a data file like any other: restore it
// by stopping the vat and putting it in place of sharevat.db (the pepper
// file is not in it and must be kept with it). A cancelled ctx stops the
// copy at the next write to w.
func (db *DB) Backup(ctx context.Context, w io.Writer) (n int64, err error) {
	err = db.viewFlushed(ctx, "backup", func(tx *bbolt.Tx) error {
		n, err = tx.WriteTo(ctxWriter{ctx, w})
		return err
	})
	return n, err
}

// BackupFile writes a copy of the data file at path, which no running
// vat holds, to w and returns its length: a backup of a stopped data
// directory. The file is checked first (as Open checks it) and opened
// read-only. Errors: a *boltutil.DamagedError (ECorrupt) for an empty or
// damaged file; EUnavailable if a running vat holds the file after
// lockTimeout (back it up through that vat instead); an error for a
// missing file.
func BackupFile(ctx context.Context, path string, w io.Writer, lockTimeout time.Duration) (int64, error) {
	bdb, err := openReadOnly(path, lockTimeout)
	if err != nil {
		return 0, err
	}
	defer bdb.Close()
	if pendingWAL(bdb, path) {
		// A vat that died left acknowledged appends in its log only:
		// open the directory as the vat would (replaying the log), and
		// back up the data file with the log applied.
		_ = bdb.Close()
		return backupReplayed(ctx, path, w, lockTimeout)
	}
	var n int64
	err = boltutil.View(bdb, func(tx *bbolt.Tx) error {
		n, err = tx.WriteTo(ctxWriter{ctx, w})
		return err
	})
	if err != nil {
		return n, dataFile.Wrap("backup", err)
	}
	return n, nil
}

// openReadOnly checks the data file at path and opens it read-only.
func openReadOnly(path string, lockTimeout time.Duration) (*bbolt.DB, error) {
	if lockTimeout <= 0 {
		lockTimeout = DefaultLockTimeout
	}
	if err := checkExists(path); err != nil {
		return nil, err
	}
	err := boltutil.Check(path, "data", lockTimeout)
	if err == nil {
		var bdb *bbolt.DB
		err = boltutil.Guard(func() (err error) {
			bdb, err = bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: lockTimeout})
			return err
		})
		if err == nil {
			return bdb, nil
		}
	}
	var damaged *boltutil.DamagedError
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return nil, sharevat.Errorf(sharevat.EUnavailable, "data file %s is in use by a running sharevat process", path)
	case errors.As(err, &damaged):
		return nil, damaged
	}
	return nil, fmt.Errorf("bolt: open %s: %w", path, err)
}

// ctxWriter fails a write once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

// checkExists refuses a missing or empty file before bbolt would create
// one or fail on it obscurely.
func checkExists(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return fmt.Errorf("bolt: %w", err)
	case fi.Size() == 0:
		return &boltutil.DamagedError{Kind: "data", Path: path, Empty: true}
	}
	return nil
}

// pendingWAL reports whether the write-ahead log beside path holds
// records the data file does not.
func pendingWAL(bdb *bbolt.DB, path string) bool {
	var cp uint64
	_ = boltutil.View(bdb, func(tx *bbolt.Tx) error { cp = readCheckpoint(tx); return nil })
	scan, err := wal.Scan(wal.OS{}, walDir(path, Options{}))
	return err != nil || scan.Next > cp+1
}

// backupReplayed opens the data directory at path (replaying its log),
// backs it up with the log applied, and closes it.
func backupReplayed(ctx context.Context, path string, w io.Writer, lockTimeout time.Duration) (int64, error) {
	db, err := Open(path, Options{LockTimeout: lockTimeout})
	if err != nil {
		return 0, err
	}
	n, err := db.Backup(ctx, w)
	if cerr := db.Close(); err == nil && cerr != nil {
		return n, cerr
	}
	return n, err
}
