package server

import (
	"context"
	"io"
	"time"

	"github.com/sharevat/sharevat/store/bolt"
)

// The data tools for a stopped vat's bbolt file (sharevat check and
// backup --data), here so that cmd/sharevat reaches the store only
// through this package. A running vat holds the file's lock: both answer
// EUnavailable after waiting a second for it.

// CheckFile checks the data file at path, structure and content, and
// returns every problem found, in words (none: the file is sound).
func CheckFile(ctx context.Context, path string) ([]string, error) {
	found, err := bolt.Check(ctx, path, time.Second)
	problems := make([]string, 0, len(found))
	for _, p := range found {
		problems = append(problems, p.String())
	}
	return problems, err
}

// BackupFile writes a consistent copy of the data file at path to w and
// returns the bytes written.
func BackupFile(ctx context.Context, path string, w io.Writer) (int64, error) {
	return bolt.BackupFile(ctx, path, w, time.Second)
}
