package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt/wal"
	"github.com/sharevat/sharevat/store/internal/boltutil"
)

// Defaults of the write-ahead log's background apply.
const (
	// DefaultApplyBytes: the applier starts as soon as this much log is
	// not yet in the data file.
	DefaultApplyBytes = 4 << 20
	// DefaultApplyEvery: the applier runs at least this often while
	// anything is pending.
	DefaultApplyEvery = time.Second
	// maxApplyBytes bounds the log records one data-file transaction
	// applies.
	maxApplyBytes = 32 << 20
)

// keyCheckpoint, in the sharevat bucket, is the LSN of the last
// write-ahead log record the data file holds (8 bytes).
var keyCheckpoint = []byte("wal")

// walState is the write-ahead log of a DB and what goes with it.
//
// Locks, always taken in this order: order serialises the deciding and
// writing of append groups (walpipe.go) with every other write that
// touches a share's log, epoch or existence (those first apply the whole
// log to the data file: exclusive), and with trimming the overlay; pubMu
// serialises syncing the log and publishing to the overlay; applyMu
// serialises applying records to the data file. The overlay's own lock
// is innermost.
type walState struct {
	dir    string
	log    *wal.Log
	ov     *overlay
	order  sync.Mutex
	shares map[sharevat.ShareID]sharevat.Share // the decider's cache (walState.share); under order
	stage  stage                               // ops of groups written, not yet pruned (walpipe.go); under order
	staged []*flight                           // their groups, in LSN order; under order

	pubMu     sync.Mutex    // serialises syncing and publishing (walState.durable)
	unpub     []*flight     // groups written, not yet published, in LSN order; under pubMu
	pubErr    error         // a failed fdatasync: every later group fails; under pubMu
	published atomic.Uint64 // the last LSN published to the overlay

	applyMu    sync.Mutex
	applyBytes int64
	applyEvery time.Duration
	maxPending int64
	notice     *applyNotice
	applyFault func() error // tests: fails the applier's attempts
	logger     func(msg string, args ...any)

	kick     chan struct{}
	stop     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
}

// stopApplier stops the applier and waits for it; false if it was
// stopped already.
func (w *walState) stopApplier() bool {
	first := false
	w.stopOnce.Do(func() { first = true; close(w.stop) })
	<-w.done
	return first
}

// walDir is where the log of the data file at path lives.
func walDir(path string, opts Options) string {
	if opts.WALDir != "" {
		return opts.WALDir
	}
	return path + ".wal"
}

// openWAL opens the write-ahead log, replays what the data file does not
// hold into the overlay, and starts the applier. With opts.NoWAL a log
// left by an earlier run is applied to the data file and removed.
func (db *DB) openWAL() error {
	dir := walDir(db.path, db.opts)
	if db.opts.NoWAL {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return nil
		}
	}
	cp, err := db.checkpoint()
	if err != nil {
		return err
	}
	if !db.opts.NoWAL {
		if err := linkWALDir(db.path, db.opts, cp); err != nil {
			return err
		}
	}
	log, recs, err := wal.Open(dir, cp, wal.Options{FS: db.opts.WALFS, NoSync: db.opts.NoSync})
	if err != nil {
		return walDamaged(dir, cp, err)
	}
	w := &walState{dir: dir, log: log, ov: newOverlay(), shares: map[sharevat.ShareID]sharevat.Share{}, stage: stage{}, applyBytes: db.opts.ApplyBytes, applyEvery: db.opts.ApplyEvery,
		maxPending: db.opts.MaxPendingBytes, notice: newApplyNotice(), logger: db.opts.Logger.Error, kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	db.wal = w
	if err := db.replay(recs); err != nil {
		_ = log.Close()
		return walDamaged(dir, cp, err)
	}
	w.published.Store(log.Next() - 1)
	if db.opts.NoWAL {
		return db.dropWAL()
	}
	go db.applyLoop()
	return nil
}

// dropWAL applies the whole log to the data file and removes it (Open
// with NoWAL).
func (db *DB) dropWAL() error {
	w := db.wal
	w.order.Lock()
	err := db.flushLocked()
	w.order.Unlock()
	if cerr := w.log.Close(); err == nil {
		err = cerr
	}
	db.wal = nil
	if err != nil {
		return fmt.Errorf("bolt: apply the write-ahead log: %w", err)
	}
	return os.RemoveAll(w.dir)
}

// checkpoint reads the LSN of the last log record the data file holds.
func (db *DB) checkpoint() (cp uint64, err error) {
	err = boltutil.View(db.bdb, func(tx *bbolt.Tx) error {
		cp = readCheckpoint(tx)
		return nil
	})
	return cp, err
}

func readCheckpoint(tx *bbolt.Tx) uint64 {
	if v := tx.Bucket(bucketMeta).Get(keyCheckpoint); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// replay decodes the records past the checkpoint and publishes them to
// the overlay, checking that each share's entries follow on from its
// head in the data file.
func (db *DB) replay(raw []wal.Record) error {
	if len(raw) == 0 {
		return nil
	}
	heads := map[sharevat.ShareID]sharevat.Cursor{}
	recs := make([]*walRecord, 0, len(raw))
	err := boltutil.View(db.bdb, func(tx *bbolt.Tx) error {
		for _, r := range raw {
			rec, err := decodeWALRecord(r.LSN, r.Data)
			if err != nil {
				return err
			}
			if err := followsOn(tx, heads, rec); err != nil {
				return err
			}
			recs = append(recs, rec)
		}
		return nil
	})
	if err != nil {
		return err
	}
	db.wal.ov.publish(recs)
	return nil
}

// followsOn checks that rec's entries continue its share's log.
func followsOn(tx *bbolt.Tx, heads map[sharevat.ShareID]sharevat.Cursor, rec *walRecord) error {
	head, ok := heads[rec.share]
	if !ok {
		s, err := liveShare(tx, rec.share)
		if err != nil {
			return corruptf("wal record %d is for share %q, which the data file does not hold live", rec.lsn, rec.share)
		}
		head = s.Head
	}
	for i := range rec.entries {
		if c := rec.entries[i].Cursor; c != head+1 {
			return corruptf("wal record %d puts share %q cursor %d after head %d", rec.lsn, rec.share, c, head)
		}
		head++
	}
	heads[rec.share] = head
	return nil
}

// closeWAL stops the applier, applies the whole log to the data file
// (a clean shutdown leaves nothing to replay) and closes the log.
func (db *DB) closeWAL() error {
	w := db.wal
	if w == nil {
		return nil
	}
	if !w.stopApplier() {
		return nil
	}
	w.order.Lock()
	err := w.drain()
	if err == nil {
		err = db.flushLocked()
	}
	w.order.Unlock()
	if cerr := w.log.Close(); err == nil {
		err = cerr
	}
	return err
}

// crashWAL stops the applier and closes the log without applying it,
// as a killed process leaves it (tests).
func (db *DB) crashWAL() {
	w := db.wal
	w.stopApplier()
	w.order.Lock()
	_ = w.log.Close()
	w.order.Unlock()
}
