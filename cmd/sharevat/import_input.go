package main

import (
	"fmt"
	"io"
	"os"

	"github.com/sharevat/sharevat/exportfile"
)

// An import reads its input twice, so that nothing is created for an
// input that turns out to be damaged, and so that its memory is bounded
// by the largest op, not by the size of the input:
//
//  1. a check pass reads every op (and learns what the import needs
//     before it starts: the op count, the export's identity);
//  2. the import pass reads the input again from its start and sends.
//
// A regular --file is simply opened twice. Stdin (or a pipe, a FIFO) is
// copied while it is checked into a spool file in the state directory's
// imports/, which is unlinked as soon as it is created (so that nothing
// is left behind by a killed import) and read again through the file
// descriptor: it takes as much disk as the input, for as long as the
// import runs.

// importInput is the input of `import`: stdin, or --file.
type importInput struct {
	env   *Env
	file  string
	dir   string   // where a spool file goes
	spool *os.File // stdin's copy, once the check pass made it
}

// openSource reads the input through once to check it, then returns a
// source reading it again from its start, and a func that closes it.
func openSource(in *importInput, from string) (exportfile.Source, func(), error) {
	r, done, err := in.open()
	if err != nil {
		return nil, nil, err
	}
	check, err := exportfile.Open(r, from)
	if err == nil {
		err = exportfile.Check(check)
	}
	done()
	if err != nil {
		in.close()
		return nil, nil, err
	}
	r, done, err = in.reopen()
	if err != nil {
		in.close()
		return nil, nil, err
	}
	src, err := check.Again(r)
	if err != nil {
		done()
		in.close()
		return nil, nil, err
	}
	return src, func() { done(); in.close() }, nil
}

// open returns the reader of the check pass: the file, or stdin copied
// into a new spool file as it is read.
func (in *importInput) open() (io.Reader, func(), error) {
	if in.seekable() {
		return in.openFile()
	}
	r, done := io.Reader(in.env.Stdin), func() {}
	if in.file != "" {
		f, err := openOpsFile(in.file)
		if err != nil {
			return nil, nil, err
		}
		r, done = f, func() { f.Close() }
	}
	spool, err := in.newSpool()
	if err != nil {
		done()
		return nil, nil, err
	}
	return io.TeeReader(r, &spoolWriter{spool}), done, nil
}

// reopen returns the reader of the import pass, from the input's start.
func (in *importInput) reopen() (io.Reader, func(), error) {
	if in.spool == nil {
		return in.openFile()
	}
	if _, err := in.spool.Seek(0, io.SeekStart); err != nil {
		return nil, nil, fmt.Errorf("reading the input's spool file again: %w", err)
	}
	return in.spool, func() {}, nil
}

// openFile opens --file.
func (in *importInput) openFile() (io.Reader, func(), error) {
	f, err := openOpsFile(in.file)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// newSpool creates the spool file and unlinks it at once.
func (in *importInput) newSpool() (*os.File, error) {
	f, err := os.CreateTemp(in.dir, ".input-*.spool")
	if err != nil {
		return nil, fmt.Errorf("a spool file for the input (the state directory): %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("a spool file for the input (the state directory): %w", err)
	}
	in.spool = f
	return f, nil
}

// close closes the spool file, which frees its disk space.
func (in *importInput) close() {
	if in.spool != nil {
		in.spool.Close()
		in.spool = nil
	}
}

// seekable reports whether the input is a regular file, read twice.
func (in *importInput) seekable() bool {
	if in.file == "" {
		return false
	}
	fi, err := os.Stat(in.file)
	return err == nil && fi.Mode().IsRegular()
}

// spoolWriter writes to the spool file, naming it in its errors (e.g.
// a full disk), which would otherwise read as the input's.
type spoolWriter struct{ f *os.File }

func (w *spoolWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = fmt.Errorf("copying the input to a spool file in the state directory: %w", err)
	}
	return n, err
}
