package bolt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	bbolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt/wal"
	"github.com/sharevat/sharevat/store/internal/boltutil"
	"github.com/sharevat/sharevat/store/internal/commit"
)

// Top-level bucket names (see doc.go).
var (
	bucketMeta        = []byte("sharevat")
	bucketShares      = []byte("shares")
	bucketGrants      = []byte("grants")
	bucketShareGrants = []byte("share_grants")
	bucketAudit       = []byte("audit")
	bucketAuditShare  = []byte("audit_share")
	bucketLogs        = []byte("logs")
	topBuckets        = [][]byte{bucketMeta, bucketShares, bucketGrants,
		bucketShareGrants, bucketAudit, bucketAuditShare, bucketLogs,
		bucketShareUpdated, bucketShareStatus, bucketShareChildren}
	keyFormat = []byte("format")
)

// DefaultLockTimeout is how long Open waits for the file lock by default.
const DefaultLockTimeout = time.Second

// Options tune Open.
type Options struct {
	// LockTimeout bounds the wait for the data file's lock; 0 means
	// DefaultLockTimeout.
	LockTimeout time.Duration
	// NoSync skips the fsync on commit. UNSAFE: a crash or power loss can
	// lose acknowledged writes or corrupt the file. For tests and
	// benchmarks only; never in production.
	NoSync bool
	// OnCommit, if set, is called after each durable append transaction
	// with the number of append calls and ops it carried and how long the
	// transaction (including its fsync) took. It must not block.
	OnCommit func(calls, ops int, took time.Duration)
	// NoWAL turns the write-ahead log off: every append then commits
	// its own bbolt transaction (two fsyncs a group). A log left by an
	// earlier run is applied to the data file at Open and removed.
	NoWAL bool
	// WALDir is the write-ahead log's directory; "" means the data
	// file's path with ".wal" added. Open makes that path a symbolic
	// link to WALDir (Check, BackupFile and a later Open without WALDir
	// find the log there), and refuses to start when a log with records
	// is at that path or at the link's old target: apply it first (start
	// once without changing WALDir).
	WALDir string
	// WALFS is the file layer under the write-ahead log; nil means the
	// operating system's. For tests (wal.Lossy).
	WALFS wal.FS
	// ApplyBytes and ApplyEvery tune when the log is applied to the data
	// file in the background: as soon as ApplyBytes are pending, and
	// every ApplyEvery while any are. 0 means DefaultApplyBytes and
	// DefaultApplyEvery.
	ApplyBytes int64
	ApplyEvery time.Duration
	// MaxPendingBytes bounds the log not yet in the data file; 0 means
	// DefaultMaxPendingBytes. Past it, appends wait for the applier (up
	// to 10 s), or are refused with EUnavailable at once if its last
	// attempt failed (a full disk): the overlay, which holds that log in
	// memory, never grows past the bound by more than one group, and a
	// restart never replays more.
	MaxPendingBytes int64
	// Logger receives what a caller may not see: the share and cursor of
	// a record that failed its integrity check, a panic on a damaged
	// page, the OS error behind a full disk. Never op contents or
	// secrets. nil discards.
	Logger *slog.Logger
}

// DB is a sharevat.Store in one bbolt file.
type DB struct {
	path    string
	opts    Options
	bdb     *bbolt.DB
	commits *commit.Committer
	wal     *walState // nil with NoWAL
}

var _ sharevat.Store = (*DB)(nil)

// Open opens (creating if needed, with mode 0600) the data file at path.
// If another DB holds the file, Open fails after opts.LockTimeout with
// sharevat.EUnavailable. An empty (0-byte) or damaged file is refused
// with one line that says so and names the file (a
// *boltutil.DamagedError, code ECorrupt), never a panic: see doc.go,
// "Damaged files".
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ApplyBytes <= 0 {
		opts.ApplyBytes = DefaultApplyBytes
	}
	if opts.ApplyEvery <= 0 {
		opts.ApplyEvery = DefaultApplyEvery
	}
	if opts.MaxPendingBytes <= 0 {
		opts.MaxPendingBytes = DefaultMaxPendingBytes
	}
	bdb, err := boltutil.OpenQuick(path, "data", boltOptions(opts))
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, sharevat.Errorf(sharevat.EUnavailable, "data file %s is in use by another sharevat process", path)
	}
	var damaged *boltutil.DamagedError
	if errors.As(err, &damaged) {
		return nil, damaged // one line that says it all
	}
	if err != nil {
		return nil, fmt.Errorf("bolt: %w", err)
	}
	if err := boltutil.Update(bdb, initBuckets); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("bolt: open %s: %w", path, err)
	}
	db := &DB{path: path, opts: opts, bdb: bdb}
	db.commits = commit.New(db.lead)
	if err := db.sealCompacted(); err != nil {
		_ = bdb.Close()
		return nil, fmt.Errorf("bolt: open %s: moving compacted op ids to the sealed index: %w", path, err)
	}
	if err := db.openWAL(); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	return db, nil
}

// boltOptions are the bbolt settings for opts. The freelist is a hash map
// and is written on every commit (8 bytes a free page), so that an open
// reads it instead of rebuilding it by walking every page of the file:
// a restart costs what the write-ahead log and the free pages cost, not
// what the file holds (boltutil.OpenQuick; docs/operations.md). The
// write-ahead log batches many appends into each bbolt commit, which
// keeps that write small beside the group's.
func boltOptions(opts Options) bbolt.Options {
	return bbolt.Options{
		Timeout:      opts.LockTimeout,
		NoSync:       opts.NoSync,
		FreelistType: bbolt.FreelistMapType,
	}
}

// dataFormat is the data file's format: 2 added the grant index
// (grant_children); 3 the share indexes (share_updated, share_status,
// share_children), compaction (a share's earliest cursor, the base
// bucket, version-2 entities) and deletion that removes a share's log;
// 4 the sealed index of compacted op ids (sealed.go). A build that reads
// an older format refuses a newer file, so no older build can write what
// the newer indexes would miss.
const dataFormat = 4

// initBuckets creates the top-level buckets, upgrades a file of format 1
// (building its grant index), 2 (building its share indexes) or 3
// (marking it for sealCompacted), and checks the format version.
func initBuckets(tx *bbolt.Tx) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	old := meta.Get(keyFormat)
	upgrade := len(old) == 1 && (old[0] == 1 || old[0] == 2)
	if len(old) == 1 && old[0] == 3 {
		if err := meta.Put(keySealing, []byte{1}); err != nil {
			return err
		}
		if err := meta.Put(keyFormat, []byte{dataFormat}); err != nil {
			return err
		}
	}
	for _, name := range topBuckets {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	if _, err := grantIndex(tx); err != nil { // built from the grants when missing
		return err
	}
	if upgrade {
		if err := buildShareIndexes(tx); err != nil {
			return err
		}
		return meta.Put(keyFormat, []byte{dataFormat})
	}
	return boltutil.CheckFormat(meta, keyFormat, dataFormat, "data")
}

// Path returns the data file's path.
func (db *DB) Path() string { return db.path }

// Size returns how many bytes of the data file hold pages, free ones
// included (the file itself may be longer: bbolt grows it ahead). It
// does not wait for the write-ahead log: what the log holds and the data
// file does not yet (at most Options.MaxPendingBytes, usually a few MiB)
// is not counted. It grows with the data stored and never shrinks. 0
// after Close.
func (db *DB) Size() int64 {
	var n int64
	_ = db.bdb.View(func(tx *bbolt.Tx) error { n = tx.Size(); return nil })
	return n
}

// Close closes the data file, waiting for running transactions. Calls
// after Close fail with sharevat.EUnavailable.
func (db *DB) Close() error {
	werr := db.closeWAL()
	if err := db.bdb.Close(); err != nil {
		return fmt.Errorf("bolt: close: %w", err)
	}
	if werr != nil {
		return fmt.Errorf("bolt: close: %w", werr)
	}
	return nil
}

// view runs fn in a read-only transaction; a panic in it (a damaged
// page) is an error (boltutil.View).
func (db *DB) view(ctx context.Context, op string, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bolt: %s: %w", op, err)
	}
	return db.wrap(op, boltutil.View(db.bdb, fn))
}

// update runs fn in a read-write transaction, committed durably; a panic
// in it rolls it back and is an error (boltutil.Update).
func (db *DB) update(ctx context.Context, op string, fn func(*bbolt.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("bolt: %s: %w", op, err)
	}
	return db.wrap(op, boltutil.Update(db.bdb, fn))
}
