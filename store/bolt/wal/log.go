package wal

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// DefaultSegmentBytes is the size past which a new segment starts.
const DefaultSegmentBytes = 64 << 20

// Options tune Open.
type Options struct {
	// FS is the file layer; nil means OS.
	FS FS
	// SegmentBytes is the size past which the next group of records
	// starts a new segment; 0 means DefaultSegmentBytes.
	SegmentBytes int64
	// NoSync skips the fdatasync. UNSAFE: for tests and benchmarks only.
	NoSync bool
}

// Log is a write-ahead log open for appending. Its methods are safe for
// concurrent use; Appends and Writes are serialised, and so are Syncs.
type Log struct {
	dir  string
	opts Options

	mu      sync.Mutex
	segs    []uint64 // first LSN of each segment, oldest first
	f       File     // the last segment
	size    int64    // its size
	next    uint64   // the LSN of the next record
	failed  error    // set by a failed fdatasync: every later Append fails
	buf     []byte
	written int64 // bytes appended since Open, frames included

	syncMu sync.Mutex // serialises Syncs (and a segment's last one with its close); before mu
	synced uint64     // the last LSN a Sync made durable; under syncMu
}

// Open opens (creating if needed) the log in dir, reads it, cuts a torn
// tail off its last segment, and returns the records with an LSN above
// after (the checkpoint: what the caller already holds). The next
// record's LSN is past both the last record and after. Errors wrap
// ErrCorrupt for damage that is not a torn tail, or a gap before the
// first record above after.
func Open(dir string, after uint64, opts Options) (*Log, []Record, error) {
	if opts.FS == nil {
		opts.FS = OS{}
	}
	if opts.SegmentBytes <= 0 {
		opts.SegmentBytes = DefaultSegmentBytes
	}
	if err := opts.FS.MkdirAll(dir); err != nil {
		return nil, nil, fmt.Errorf("wal: %w", err)
	}
	scan, err := Scan(opts.FS, dir)
	if err != nil {
		return nil, nil, err
	}
	if err := scan.needs(after); err != nil {
		return nil, nil, err
	}
	l := &Log{dir: dir, opts: opts, segs: scan.Segments, next: max(scan.Next, after+1)}
	l.synced = l.next - 1
	if err := l.openTail(scan); err != nil {
		return nil, nil, err
	}
	if !opts.NoSync && len(scan.Records) > 0 {
		// A killed process leaves its last writes in the page cache,
		// perhaps unsynced: what is replayed, and so read, must not be
		// lost to a power loss after.
		if err := l.f.Sync(); err != nil {
			_ = l.f.Close()
			return nil, nil, fmt.Errorf("wal: %w", err)
		}
	}
	i, _ := slices.BinarySearchFunc(scan.Records, after+1, func(r Record, lsn uint64) int { return cmpU64(r.LSN, lsn) })
	return l, scan.Records[i:], nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// openTail cuts the torn tail of the last segment (or creates the
// first segment) and opens it for appending.
func (l *Log) openTail(scan *Scanned) error {
	if len(l.segs) > 0 && scan.Next < l.next {
		// The checkpoint is past every record: the data file holds them
		// all, so the segments go, and names stay LSNs.
		for _, first := range l.segs {
			if err := l.opts.FS.Remove(l.segPath(first)); err != nil {
				return fmt.Errorf("wal: %w", err)
			}
		}
		l.segs = nil
	}
	if len(l.segs) == 0 {
		return l.startSegment()
	}
	path := l.segPath(l.segs[len(l.segs)-1])
	f, err := l.opts.FS.OpenAppend(path)
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	l.f, l.size = f, scan.TailEnd
	if scan.Torn != "" {
		if err := l.cut(); err != nil {
			_ = f.Close()
			return err
		}
	}
	return nil
}

// cut truncates the last segment to l.size and makes that durable.
func (l *Log) cut() error {
	if err := l.f.Truncate(l.size); err != nil {
		return fmt.Errorf("wal: cut the torn tail: %w", err)
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("wal: cut the torn tail: %w", err)
	}
	return nil
}

// startSegment closes the last segment and starts one at l.next.
func (l *Log) startSegment() error {
	if l.f != nil {
		if err := l.f.Close(); err != nil {
			return fmt.Errorf("wal: %w", err)
		}
		l.f = nil
	}
	f, err := l.opts.FS.OpenAppend(l.segPath(l.next))
	if err != nil {
		return fmt.Errorf("wal: %w", err)
	}
	if err := l.opts.FS.SyncDir(l.dir); err != nil {
		_ = f.Close()
		return fmt.Errorf("wal: %w", err)
	}
	l.f, l.size = f, 0
	l.segs = append(l.segs, l.next)
	return nil
}

// segName is the file name of the segment whose first LSN is first.
func segName(first uint64) string { return fmt.Sprintf("%016x.wal", first) }

func (l *Log) segPath(first uint64) string { return filepath.Join(l.dir, segName(first)) }

// parseSegName is the first LSN a segment's name gives, and whether the
// name is a segment's.
func parseSegName(name string) (uint64, bool) {
	hex, ok := strings.CutSuffix(name, ".wal")
	if !ok || len(hex) != 16 {
		return 0, false
	}
	n, err := strconv.ParseUint(hex, 16, 64)
	return n, err == nil
}

// Append writes data as consecutive records in one write and makes them
// durable with one fdatasync, and returns the first one's LSN. A failed
// write is undone; a failed fdatasync fails this and every later Append.
func (l *Log) Append(data ...[]byte) (uint64, error) {
	first, err := l.Write(data...)
	if err == nil {
		_, err = l.Sync()
	}
	return first, err
}

// Write writes data as consecutive records in one write, without making
// them durable, and returns the first one's LSN: Sync does that, and
// may run while the next Write does (a pipeline: the caller decides
// and writes group N+1 while group N's fdatasync runs). A failed write
// is undone. Before a new segment starts, the last one is synced.
func (l *Log) Write(data ...[]byte) (uint64, error) {
	l.mu.Lock()
	full := l.size >= l.opts.SegmentBytes
	l.mu.Unlock()
	if full { // the segment's fdatasync must not race its close
		l.syncMu.Lock()
		defer l.syncMu.Unlock()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed != nil {
		return 0, l.failed
	}
	if full && l.size >= l.opts.SegmentBytes {
		if err := l.syncLocked(); err != nil {
			return 0, err
		}
		if err := l.startSegment(); err != nil {
			return 0, err
		}
	}
	first := l.next
	l.buf = l.buf[:0]
	for i, d := range data {
		l.buf = appendFrame(l.buf, first+uint64(i), d)
	}
	if err := l.write(l.buf); err != nil {
		return 0, err
	}
	l.next += uint64(len(data))
	l.size += int64(len(l.buf))
	l.written += int64(len(l.buf))
	if cap(l.buf) > 4<<20 {
		l.buf = nil // do not keep a huge group's buffer
	}
	return first, nil
}

// Sync makes every record written so far durable with one fdatasync
// (none if an earlier Sync covered them) and returns the LSN of the last
// one. Writes go on while it runs; Syncs are serialised. A failed
// fdatasync fails this and every later Write and Sync.
func (l *Log) Sync() (uint64, error) {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	l.mu.Lock()
	f, last, failed := l.f, l.next-1, l.failed
	l.mu.Unlock()
	if failed != nil {
		return 0, failed
	}
	if last <= l.synced || l.opts.NoSync {
		l.synced = max(l.synced, last)
		return last, nil
	}
	if err := f.Sync(); err != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.failed = fmt.Errorf("wal: fdatasync failed; the log takes no more appends until the vat restarts: %w", err)
		return 0, l.failed
	}
	l.synced = last
	return last, nil
}

// syncLocked is Sync's fdatasync of the last segment; the caller holds
// syncMu and mu.
func (l *Log) syncLocked() error {
	if l.opts.NoSync || l.next-1 <= l.synced {
		return nil
	}
	if err := l.f.Sync(); err != nil {
		l.failed = fmt.Errorf("wal: fdatasync failed; the log takes no more appends until the vat restarts: %w", err)
		return l.failed
	}
	l.synced = l.next - 1
	return nil
}

// write appends b to the last segment, truncating back what a failed
// write left.
func (l *Log) write(b []byte) error {
	_, err := l.f.Write(b)
	if err == nil {
		return nil
	}
	if terr := l.f.Truncate(l.size); terr != nil {
		l.failed = fmt.Errorf("wal: a failed write could not be undone (%v); the log takes no more appends until the vat restarts: %w", terr, err)
		return l.failed
	}
	return fmt.Errorf("wal: write: %w", err)
}

// Next is the LSN the next record will get.
func (l *Log) Next() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.next
}

// Written is how many bytes Append wrote since Open.
func (l *Log) Written() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.written
}

// Release removes the segments whose records all have an LSN at or
// below upTo (the checkpoint), never the last one.
func (l *Log) Release(upTo uint64) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for n+1 < len(l.segs) && l.segs[n+1]-1 <= upTo {
		if err := l.opts.FS.Remove(l.segPath(l.segs[n])); err != nil {
			break
		}
		n++
	}
	l.segs = slices.Delete(l.segs, 0, n)
	return nil
}

// Segments is how many segment files the log has.
func (l *Log) Segments() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.segs)
}

// Close closes the last segment. Appends after Close fail.
func (l *Log) Close() error {
	l.syncMu.Lock()
	defer l.syncMu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if l.failed == nil {
		l.failed = fmt.Errorf("wal: the log is closed")
	}
	return err
}
