package wal

import (
	"os"
	"sync"
)

// Lossy is an FS for tests only: the operating system's, except that
// Crash forgets what a power loss would, everything written to a file
// after its last Sync. (Directory entries are taken as durable: the log
// syncs its directory after creating a segment.)
type Lossy struct {
	mu     sync.Mutex
	synced map[string]int64 // path → length at its last Sync
	fail   error            // returned by every Sync once set
	OS
}

// NewLossy returns a Lossy FS.
func NewLossy() *Lossy { return &Lossy{synced: map[string]int64{}} }

// OpenAppend opens path for appending; what is in it now counts as
// synced.
func (l *Lossy) OpenAppend(path string) (File, error) {
	f, err := l.OS.OpenAppend(path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(path)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	l.mu.Lock()
	l.synced[path] = st.Size()
	l.mu.Unlock()
	return &lossyFile{File: f, path: path, fs: l, size: st.Size()}, nil
}

// Remove removes a file and forgets it.
func (l *Lossy) Remove(path string) error {
	l.mu.Lock()
	delete(l.synced, path)
	l.mu.Unlock()
	return l.OS.Remove(path)
}

// Crash cuts every file opened through l back to its length at its last
// Sync. Call it once the log's user is gone (its files closed).
func (l *Lossy) Crash() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for path, n := range l.synced {
		if err := os.Truncate(path, n); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// FailSync makes every later Sync fail with err (an I/O error of the
// disk), leaving what was written unsynced.
func (l *Lossy) FailSync(err error) {
	l.mu.Lock()
	l.fail = err
	l.mu.Unlock()
}

// Unsynced is how many bytes Crash would drop now.
func (l *Lossy) Unsynced() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for path, s := range l.synced {
		if st, err := os.Stat(path); err == nil {
			n += st.Size() - s
		}
	}
	return n
}

// lossyFile tracks a file's length and its length at the last Sync.
type lossyFile struct {
	File
	path string
	fs   *Lossy
	size int64
}

func (f *lossyFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.fs.mu.Lock()
	f.size += int64(n)
	f.fs.mu.Unlock()
	return n, err
}

// Sync makes durable what was written before it started: a write that
// runs during the fdatasync may or may not be, so it counts as not.
func (f *lossyFile) Sync() error {
	f.fs.mu.Lock()
	fail, size := f.fs.fail, f.size
	f.fs.mu.Unlock()
	if fail != nil {
		return fail
	}
	if err := f.File.Sync(); err != nil {
		return err
	}
	f.fs.mu.Lock()
	f.fs.synced[f.path] = max(f.fs.synced[f.path], size)
	f.fs.mu.Unlock()
	return nil
}

func (f *lossyFile) Truncate(size int64) error {
	if err := f.File.Truncate(size); err != nil {
		return err
	}
	f.fs.mu.Lock()
	f.size = size
	f.fs.synced[f.path] = min(f.fs.synced[f.path], size)
	f.fs.mu.Unlock()
	return nil
}
