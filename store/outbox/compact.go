package outbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat/store/internal/boltutil"
)

// bbolt never shrinks a file: pages freed by acked and pruned records are
// reused, but the file keeps the size of its busiest moment. Compact
// writes the live data into a new file and renames it over the old one.

const (
	// compactMinWaste is how many bytes a file must waste before
	// Compact rewrites it.
	compactMinWaste = 1 << 20
	// compactTxSize bounds each transaction of the copy.
	compactTxSize = 4 << 20
)

// compactPath is the new file Compact writes before renaming it over
// path. Only the holder of path's lock writes it.
func compactPath(path string) string { return path + ".compact" }

// Compact rewrites the file when at least half of it, and at least
// 1 MiB, is free pages; it reports whether it did. The live data is
// copied into a new file (synced), which is locked before it is renamed
// over the old one and the directory synced, so a crash at any point
// leaves either the old file or the new one, whole, at the path, and the
// lock on the file at the path is held throughout. On an error the old
// file stays in use. Errors: EUnavailable after Close.
func (db *DB) Compact() (bool, error) {
	db.mu.Lock()
	defer db.mu.Unlock()
	sparse, err := db.sparse()
	if err != nil || !sparse {
		return false, err
	}
	dst, err := db.copyLive()
	if err != nil {
		return false, db.wrap("compact", err)
	}
	if err := os.Rename(compactPath(db.path), db.path); err != nil {
		_ = dst.Close()
		_ = os.Remove(compactPath(db.path))
		return false, db.wrap("compact", err)
	}
	old := db.bdb
	db.bdb = dst
	_ = old.Close() // its file is gone from the path: nothing to lose
	return true, db.wrap("compact", syncDir(filepath.Dir(db.path)))
}

// sparse reports whether the file wastes enough to be worth compacting.
func (db *DB) sparse() (bool, error) {
	fi, err := os.Stat(db.path)
	if err != nil {
		return false, err
	}
	var live int64
	err = boltutil.View(db.bdb, func(tx *bbolt.Tx) error { // db.mu is held
		st := db.bdb.Stats()
		live = tx.Size() - int64(st.FreePageN+st.PendingPageN)*int64(db.bdb.Info().PageSize)
		return nil
	})
	if err != nil {
		return false, db.wrap("compact", err)
	}
	waste := fi.Size() - live
	return waste >= compactMinWaste && live < waste, nil
}

// copyLive copies the live data into a new file next to the old one and
// returns it open (and so locked). Every copy transaction is synced.
func (db *DB) copyLive() (*bbolt.DB, error) {
	tmp := compactPath(db.path)
	if err := os.Remove(tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	dst, err := bbolt.Open(tmp, 0o600, &bbolt.Options{Timeout: db.lockTimeout})
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", tmp, err)
	}
	err = boltutil.Guard(func() error { return bbolt.Compact(dst, db.bdb, compactTxSize) })
	if err == nil {
		err = dst.Sync()
	}
	if err != nil {
		_ = dst.Close()
		_ = os.Remove(tmp)
		return nil, err
	}
	return dst, nil
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
