package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"

	"sharevat"
)

// importSource is what `import` reads: a sharevat export or an opencode
// session export, turned into the ops to append in order.
type importSource interface {
	// identity tells this export from any other: an interrupted import
	// of the same identity is resumed, not started again.
	identity() string
	// meta is the metadata of the share to create.
	meta() sharevat.MetaPatch
	// settings are the share's settings to apply to a new share; ok is
	// false when the input has none.
	settings() (s sharevat.Settings, ok bool, err error)
	// total is the number of ops next returns.
	total() int
	// next returns the next op; io.EOF after the last. An error other
	// than io.EOF means the input is malformed there.
	next() (sharevat.Op, error)
	// again returns a source reading r, the same input from its start,
	// once this one has been read to its end: it knows what this one
	// learned, and refuses an input that changed since.
	again(r io.Reader) (importSource, error)
}

// Input formats of `import --from`.
const (
	fromAuto     = "auto"
	fromSharevat = "sharevat"
	fromOpencode = "opencode"
)

// readSource detects the format of in (or takes from) and returns the
// source reading it.
func readSource(in io.Reader, from string) (importSource, error) {
	br := bufio.NewReaderSize(in, 1<<20)
	first, err := br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
	case err == io.EOF && len(bytes.TrimSpace(first)) == 0:
		return nil, usagef("the input is empty: want a sharevat export or an opencode session export")
	case err != nil && err != io.EOF:
		return nil, fmt.Errorf("reading the input: %w", err)
	}
	first = bytes.Clone(first)
	if from != fromOpencode {
		h, ok, err := parseHeader(bytes.TrimSpace(first))
		if err != nil {
			return nil, err
		}
		if ok {
			return &sharevatSource{h: h, r: br, hash: sha256.Sum256(bytes.TrimSpace(first)), ids: opIDSet{}}, nil
		}
		if from == fromSharevat {
			return nil, usagef(`the input is not a sharevat export: its first line is not {"format":"sharevat-export",...}`)
		}
	}
	return readOpencode(io.MultiReader(bytes.NewReader(first), br))
}

// sharevatSource reads the ops of a sharevat export, line by line.
type sharevatSource struct {
	h    exportHeader
	hash [32]byte // of the header line: the identity of an export without export_id
	r    *bufio.Reader
	line int     // the line last read
	read uint64  // ops read
	last uint64  // the cursor of the last op read
	ids  opIDSet // the op ids read, in the check pass; nil after
}

func (s *sharevatSource) identity() string {
	if s.h.ExportID != "" {
		return "sharevat-export:" + s.h.ExportID
	}
	return "sharevat-export-header:" + hex.EncodeToString(s.hash[:])
}

func (s *sharevatSource) meta() sharevat.MetaPatch {
	sh := s.h.Share
	p := sharevat.MetaPatch{Title: &sh.Title, ProjectID: &sh.ProjectID, Directory: &sh.Directory, Version: &sh.Version}
	p.Status, _ = sharevat.ParseStatus(sh.Status)
	return p
}

func (s *sharevatSource) total() int { return int(s.h.Ops) }

func (s *sharevatSource) settings() (sharevat.Settings, bool, error) { return s.h.Settings.settings() }

// next reads the next op line; at the end it checks that the export
// held every op its header announced.
func (s *sharevatSource) next() (sharevat.Op, error) {
	for {
		line, err := s.readLine()
		if err == io.EOF {
			return sharevat.Op{}, s.checkEnd()
		}
		if err != nil {
			return sharevat.Op{}, err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		return s.parse(line)
	}
}

// readLine reads one line (without its newline), refusing one longer
// than maxLine.
func (s *sharevatSource) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("line %d: longer than %d bytes", s.line+2, maxLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(line) > 0 {
			err = nil
		}
		if err == nil {
			s.line++
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// parse decodes one op line and checks its cursor follows the last.
func (s *sharevatSource) parse(line []byte) (sharevat.Op, error) {
	j, op, err := parseOpLine(line)
	lineNo := s.line + 1 // the header is line 1
	if err != nil {
		return op, usagef("line %d: %v", lineNo, err)
	}
	if s.read > 0 && j.Cursor != s.last+1 {
		return op, usagef("line %d: cursor %d does not follow cursor %d: the export is damaged", lineNo, j.Cursor, s.last)
	}
	if err := s.ids.add(&op, lineNo); err != nil {
		return op, err
	}
	s.read++
	s.last = j.Cursor
	return op, nil
}

// again reads the export again from r, after the check pass.
func (s *sharevatSource) again(r io.Reader) (importSource, error) {
	src, err := readSource(r, fromSharevat)
	if err != nil {
		return nil, inputChanged(err)
	}
	sv := src.(*sharevatSource)
	if sv.hash != s.hash {
		return nil, inputChanged(errors.New("its header is not the one checked"))
	}
	sv.ids = nil
	return sv, nil
}

// checkEnd reports an export that ends before its last op.
func (s *sharevatSource) checkEnd() error {
	if s.read < s.h.Ops {
		return usagef("the export is cut short: it holds %d of the %d ops its header announces", s.read, s.h.Ops)
	}
	if s.read > s.h.Ops {
		return usagef("the export holds %d ops, more than the %d its header announces: it is damaged", s.read, s.h.Ops)
	}
	return io.EOF
}

// opIDSet remembers the op ids of an export and a digest of each op's
// content, to refuse an op id used twice with different content (which
// a share never holds) before anything is created. It keeps 16 bytes of
// hashes and a line number per op, not the ids: two different ids
// sharing a 64-bit hash would be taken for one (about one chance in
// 10^7 for two million ops), which only refuses the file.
type opIDSet map[uint64]opSeen

// opSeen is what opIDSet keeps of one op id.
type opSeen struct {
	content uint64
	line    int
}

// opIDSeed seeds opIDSet's hashes.
var opIDSeed = maphash.MakeSeed()

// add records op, read on line, or refuses it when its op id was read
// before with different content. A nil set records nothing.
func (s opIDSet) add(op *sharevat.Op, line int) error {
	if s == nil {
		return nil
	}
	id := maphash.String(opIDSeed, op.OpID)
	var h maphash.Hash
	h.SetSeed(opIDSeed)
	h.WriteString(op.Kind + "\x00" + op.Key + "\x00")
	if op.Delete {
		h.WriteByte(1)
	}
	h.WriteByte(0)
	h.Write(op.Body)
	content := h.Sum64()
	prev, ok := s[id]
	switch {
	case !ok:
		s[id] = opSeen{content: content, line: line}
	case prev.content != content:
		return usagef("line %d: op id %q was used on line %d for another op (a share never holds one op id twice): "+
			"the export is damaged; export the share again, or correct the file", line, op.OpID, prev.line)
	}
	return nil
}

// inputChangedError is an input that changed after it was checked.
type inputChangedError struct{ err error }

func (e *inputChangedError) Error() string {
	return fmt.Sprintf("the input changed after it was checked (%v)", e.err)
}

func (e *inputChangedError) Unwrap() error { return e.err }

// inputChanged marks err, from reading the input again, as a change.
func inputChanged(err error) error {
	var ic *inputChangedError
	if errors.As(err, &ic) {
		return err
	}
	return &inputChangedError{err: err}
}
