package wal

import (
	"os"
	"path/filepath"
)

// FS is the file layer a Log works through.
type FS interface {
	// MkdirAll creates dir and its parents (mode 0700).
	MkdirAll(dir string) error
	// ReadDir lists the names in dir.
	ReadDir(dir string) ([]string, error)
	// ReadFile returns a file's content.
	ReadFile(path string) ([]byte, error)
	// OpenAppend opens path for appending, creating it (mode 0600) if
	// needed.
	OpenAppend(path string) (File, error)
	// Remove removes a file.
	Remove(path string) error
	// SyncDir makes dir's entries (a created or removed file) durable.
	SyncDir(dir string) error
}

// File is a segment open for appending.
type File interface {
	// Write appends p.
	Write(p []byte) (int, error)
	// Sync makes what was written durable (fdatasync).
	Sync() error
	// Truncate cuts the file to size bytes; later writes go to its end.
	Truncate(size int64) error
	// Close closes the file.
	Close() error
}

// OS is the operating system's file layer.
type OS struct{}

// MkdirAll creates dir.
func (OS) MkdirAll(dir string) error { return os.MkdirAll(dir, 0o700) }

// ReadDir lists the names in dir.
func (OS) ReadDir(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names, err
}

// ReadFile returns a file's content.
func (OS) ReadFile(path string) ([]byte, error) { return os.ReadFile(path) }

// OpenAppend opens path for appending.
func (OS) OpenAppend(path string) (File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

// Remove removes a file.
func (OS) Remove(path string) error { return os.Remove(path) }

// SyncDir fsyncs dir.
func (OS) SyncDir(dir string) error {
	d, err := os.Open(filepath.Clean(dir))
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// osFile is an *os.File whose Sync is fdatasync where there is one.
type osFile struct{ *os.File }

// Sync makes the written data durable.
func (f osFile) Sync() error { return datasync(f.File) }
