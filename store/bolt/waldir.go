package bolt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharevat/sharevat/store/bolt/wal"
)

// linkWALDir makes the data file's own log path (path + ".wal") lead to
// the log directory opts.WALDir names, as a symbolic link, so that
// whatever finds the log beside the data file — Check, BackupFile, a
// later Open without WALDir — finds this one. It refuses to move a log
// that holds records past the checkpoint cp: acknowledged ops the data
// file does not hold yet, which a log elsewhere would hide.
func linkWALDir(path string, opts Options, cp uint64) error {
	if opts.WALDir == "" {
		return nil
	}
	beside := path + ".wal"
	want, err := filepath.Abs(opts.WALDir)
	if err != nil {
		return fmt.Errorf("bolt: write-ahead log directory: %w", err)
	}
	if abs, err := filepath.Abs(beside); err == nil && abs == want || same(beside, want) {
		return nil
	}
	fi, err := os.Lstat(beside)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return fmt.Errorf("bolt: write-ahead log: %w", err)
	case pendingAfter(beside, cp):
		return fmt.Errorf("bolt: the write-ahead log at %s holds appends the data file does not; start once with the log where it is (a clean stop applies it) before moving it to %s", beside, want)
	case fi.Mode()&os.ModeSymlink == 0 && fi.IsDir():
		if err := os.Remove(beside); err != nil { // an empty log's directory
			return fmt.Errorf("bolt: write-ahead log: %w", err)
		}
	default:
		if err := os.Remove(beside); err != nil {
			return fmt.Errorf("bolt: write-ahead log: %w", err)
		}
	}
	if err := os.MkdirAll(want, 0o700); err != nil {
		return fmt.Errorf("bolt: write-ahead log: %w", err)
	}
	if err := os.Symlink(want, beside); err != nil {
		return fmt.Errorf("bolt: write-ahead log: %w", err)
	}
	return nil
}

// same reports whether a and b are the same directory.
func same(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// pendingAfter reports whether the log in dir (followed if a link) holds
// a record past cp, or cannot be read.
func pendingAfter(dir string, cp uint64) bool {
	scan, err := wal.Scan(wal.OS{}, dir)
	return err != nil || (len(scan.Records) > 0 && scan.Records[len(scan.Records)-1].LSN > cp)
}
