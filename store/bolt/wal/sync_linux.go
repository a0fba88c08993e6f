package wal

import (
	"os"
	"syscall"
)

// datasync is fdatasync(2): the data and the metadata needed to read it
// back (the file's size), not its times.
func datasync(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}
