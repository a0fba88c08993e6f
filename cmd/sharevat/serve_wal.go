package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/sharevat/sharevat/server"
)

// walFlags tune the write-ahead log in front of the bbolt file
// (docs/design.md §8): on by default.
type walFlags struct {
	mode       string        // "on" or "off"
	dir        string        // "" is beside the data file: <data>/sharevat.db.wal
	maxPending byteSize      // 0 is store/bolt's DefaultMaxPendingBytes
	applyEvery time.Duration // 0 is store/bolt's DefaultApplyEvery
	applyBytes byteSize      // 0 is store/bolt's DefaultApplyBytes
}

func (f *walFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.mode, "wal", "on", "the write-ahead log in front of the bbolt file: on (an append costs one sequential write and one fdatasync, applied to the file in the background) or off (every append group commits a bbolt transaction); a log left by a run with it on is applied when it starts off")
	fs.StringVar(&f.dir, "wal-dir", "", "the write-ahead log's directory (e.g. on a faster disk); <data>/sharevat.db.wal becomes a link to it, so check and backup find it; a log that holds appends the bbolt file does not is never moved (stop cleanly first); default <data>/sharevat.db.wal")
	fs.Var(&f.maxPending, "wal-max-pending", "how far the write-ahead log may run ahead of the bbolt file (its memory, and what a restart after a crash replays) before appends wait, or are refused while the file cannot be written; e.g. 256MiB; default 128MiB")
	fs.DurationVar(&f.applyEvery, "wal-apply-every", 0, "apply the write-ahead log to the bbolt file at least this often while any is pending; default 1s")
	fs.Var(&f.applyBytes, "wal-apply-bytes", "apply the write-ahead log to the bbolt file as soon as this much is pending; default 4MiB")
}

// validate checks the flags; postgres is whether the vault is in
// PostgreSQL, which has no write-ahead log of ours.
func (f *walFlags) validate(postgres bool) error {
	switch {
	case f.mode != "on" && f.mode != "off":
		return usagef("bad --wal %q: want on or off", f.mode)
	case f.maxPending < 0 || f.applyBytes < 0 || f.applyEvery < 0:
		return usagef("bad --wal-max-pending, --wal-apply-bytes or --wal-apply-every: must not be negative")
	case postgres && (f.mode == "off" || f.dir != "" || f.maxPending != 0 || f.applyBytes != 0 || f.applyEvery != 0):
		return usagef("the --wal flags are for the bbolt file, not --store postgres://")
	}
	return nil
}

// config returns the server's write-ahead log settings.
func (f *walFlags) config() server.WAL {
	return server.WAL{Off: f.mode == "off", Dir: f.dir, MaxPendingBytes: int64(f.maxPending),
		ApplyEvery: f.applyEvery, ApplyBytes: int64(f.applyBytes)}
}
