package exportfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"

	"github.com/sharevat/sharevat"
)

// Source is what an import reads: a sharevat export or an opencode
// session export, turned into the ops to append in order.
type Source interface {
	// Identity tells this export from any other: an interrupted import
	// of the same identity is resumed, not started again.
	Identity() string
	// Meta is the metadata of the share to create.
	Meta() sharevat.MetaPatch
	// Settings are the share's settings to apply to a new share; ok is
	// false when the input has none.
	Settings() (s sharevat.Settings, ok bool, err error)
	// Total is the number of ops Next returns.
	Total() int
	// Next returns the next op; io.EOF after the last. An error other
	// than io.EOF means the input is malformed there (*FormatError), or
	// could not be read.
	Next() (sharevat.Op, error)
	// Again returns a source reading r, the same input from its start,
	// once this one has been read to its end: it knows what this one
	// learned, and refuses an input that changed since (*ChangedError).
	Again(r io.Reader) (Source, error)
}

// Input formats for Open.
const (
	FromAuto     = "auto"
	FromSharevat = "sharevat"
	FromOpencode = "opencode"
)

// Open detects the format of in (or takes from: FromAuto, FromSharevat
// or FromOpencode) and returns the source reading it. Its first reading
// checks the input; read it to its end before importing anything, then
// read it again with Again.
func Open(in io.Reader, from string) (Source, error) {
	br := bufio.NewReaderSize(in, 1<<20)
	first, err := br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
	case err == io.EOF && len(bytes.TrimSpace(first)) == 0:
		return nil, formatf("the input is empty: want a sharevat export or an opencode session export")
	case err != nil && err != io.EOF:
		return nil, fmt.Errorf("reading the input: %w", err)
	}
	first = bytes.Clone(first)
	if from != FromOpencode {
		h, ok, err := ParseHeader(bytes.TrimSpace(first))
		if err != nil {
			return nil, err
		}
		if ok {
			return &sharevatSource{h: h, r: br, hash: sha256.Sum256(bytes.TrimSpace(first)), ids: opIDSet{}}, nil
		}
		if from == FromSharevat {
			return nil, formatf(`the input is not a sharevat export: its first line is not {"format":"sharevat-export",...}`)
		}
	}
	return readOpencode(io.MultiReader(bytes.NewReader(first), br))
}

// Check reads src to its end, so that a malformed or cut-short input is
// refused before anything is created; nil when it is whole.
func Check(src Source) error {
	for {
		if _, err := src.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
