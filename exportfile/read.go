package exportfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sharevat/sharevat"
)

// ParseHeader decodes a header line; ok is false when the line is not a
// sharevat export's header at all (another format). Version 1's header
// is read as having no base and its ops from cursor 1.
func ParseHeader(line []byte) (h Header, ok bool, err error) {
	if err := json.Unmarshal(line, &h); err != nil || h.Format != Format {
		return h, false, nil
	}
	switch {
	case h.Version < 1:
		return h, true, formatf("the export's header has no valid version")
	case h.Version > Version:
		return h, true, formatf("the export is format version %d; this sharevat reads version %d and older: use a newer sharevat", h.Version, Version)
	case h.Version == 1:
		h.Earliest, h.Base = 1, 0
	case h.Earliest < 1:
		return h, true, formatf("the export is format version 2 and its header has no earliest cursor: it is damaged")
	}
	return h, true, nil
}

// ParseOpLine decodes one op line into the op to append; cursor is the
// line's.
func ParseOpLine(line []byte) (cursor sharevat.Cursor, op sharevat.Op, err error) {
	j, body, err := parseLine(line)
	if err != nil {
		return 0, op, err
	}
	op = sharevat.Op{OpID: j.OpID, Kind: j.Kind, Key: j.Key, Delete: j.Delete, Body: body}
	switch {
	case j.Base:
		return 0, op, errors.New("a base line among the op lines (the header announces fewer)")
	case j.OpID == "":
		return 0, op, errors.New("the op has no op_id")
	}
	return sharevat.Cursor(j.Cursor), op, nil
}

// BaseOpPrefix begins the op id of an op that recreates a base entity.
const BaseOpPrefix = "sharevat-base:"

// ParseBaseLine decodes one base line into the op that recreates its
// entity: its op id is BaseOpPrefix and a digest of its kind, key and
// body, the same on every reading.
func ParseBaseLine(line []byte) (sharevat.Op, error) {
	j, body, err := parseLine(line)
	if err != nil {
		return sharevat.Op{}, err
	}
	switch {
	case !j.Base:
		return sharevat.Op{}, errors.New(`not a base line (no "base":true), though the header announces one here`)
	case j.Delete || len(body) == 0:
		return sharevat.Op{}, errors.New("a base entity has a body and is never a delete")
	}
	sum := sha256.Sum256([]byte(j.Kind + "\x00" + j.Key + "\x00" + string(body)))
	return sharevat.Op{OpID: BaseOpPrefix + hex.EncodeToString(sum[:16]), Kind: j.Kind, Key: j.Key, Body: body}, nil
}

// parseLine decodes a line and its body (body or body_base64).
func parseLine(line []byte) (readLine, []byte, error) {
	var j readLine
	if err := json.Unmarshal(line, &j); err != nil {
		return j, nil, fmt.Errorf("not an op line: %s", jsonError(err))
	}
	switch {
	case j.BodyBase64 != "" && j.Body != nil:
		return j, nil, errors.New("the op has both body and body_base64")
	case j.BodyBase64 != "":
		b, err := base64.StdEncoding.DecodeString(j.BodyBase64)
		if err != nil {
			return j, nil, errors.New("body_base64 is not base64")
		}
		return j, b, nil
	case j.Body != nil:
		return j, []byte(j.Body), nil
	}
	return j, nil, nil
}

// jsonError rewords a decoding error without Go type names.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		return fmt.Errorf("field %q has the wrong type (%s)", typ.Field, typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the JSON object is not closed on this line: an export is JSON Lines, one whole JSON object per line")
	}
	return errors.New(strings.TrimPrefix(err.Error(), "json: "))
}

// sharevatSource reads the lines of a sharevat export one by one.
type sharevatSource struct {
	h     Header
	hash  [32]byte // of the header line: the identity of an export without export_id
	r     *bufio.Reader
	line  int     // the line last read
	bases uint64  // base lines read
	read  uint64  // ops read
	last  uint64  // the cursor of the last op read
	ids   opIDSet // the op ids read, in the check pass; nil after
}

func (s *sharevatSource) Identity() string {
	if s.h.ExportID != "" {
		return "sharevat-export:" + s.h.ExportID
	}
	return "sharevat-export-header:" + hex.EncodeToString(s.hash[:])
}

func (s *sharevatSource) Meta() sharevat.MetaPatch {
	sh := s.h.Share
	p := sharevat.MetaPatch{Title: &sh.Title, ProjectID: &sh.ProjectID, Directory: &sh.Directory, Version: &sh.Version}
	p.Status, _ = sharevat.ParseStatus(sh.Status)
	return p
}

func (s *sharevatSource) Total() int { return int(s.h.Base + s.h.Ops) }

func (s *sharevatSource) Settings() (sharevat.Settings, bool, error) { return s.h.Settings.Parse() }

// Next reads the next base or op line; at the end it checks that the
// export held every line its header announced.
func (s *sharevatSource) Next() (sharevat.Op, error) {
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
		if s.bases < s.h.Base {
			return s.parseBase(line)
		}
		return s.parse(line)
	}
}

// readLine reads one line (without its newline), refusing one longer
// than MaxLine.
func (s *sharevatSource) readLine() ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxLine {
			return nil, fmt.Errorf("line %d: longer than %d bytes", s.line+2, MaxLine)
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

// parseBase decodes one base line.
func (s *sharevatSource) parseBase(line []byte) (sharevat.Op, error) {
	lineNo := s.line + 1 // the header is line 1
	op, err := ParseBaseLine(line)
	if err != nil {
		return op, formatf("line %d: %v", lineNo, err)
	}
	if err := s.ids.add(&op, lineNo); err != nil {
		return op, err
	}
	s.bases++
	return op, nil
}

// parse decodes one op line and checks its cursor follows the last (in
// version 2, that the first is the header's earliest).
func (s *sharevatSource) parse(line []byte) (sharevat.Op, error) {
	lineNo := s.line + 1
	cur, op, err := ParseOpLine(line)
	if err != nil {
		return op, formatf("line %d: %v", lineNo, err)
	}
	switch {
	case s.read > 0 && uint64(cur) != s.last+1:
		return op, formatf("line %d: cursor %d does not follow cursor %d: the export is damaged", lineNo, cur, s.last)
	case s.read == 0 && s.h.Version > 1 && uint64(cur) != s.h.Earliest:
		return op, formatf("line %d: the first op is at cursor %d, not at the earliest cursor %d the header announces: the export is damaged", lineNo, cur, s.h.Earliest)
	}
	if err := s.ids.add(&op, lineNo); err != nil {
		return op, err
	}
	s.read++
	s.last = uint64(cur)
	return op, nil
}

// Again reads the export again from r, after the check pass.
func (s *sharevatSource) Again(r io.Reader) (Source, error) {
	src, err := Open(r, FromSharevat)
	if err != nil {
		return nil, Changed(err)
	}
	sv := src.(*sharevatSource)
	if sv.hash != s.hash {
		return nil, Changed(errors.New("its header is not the one checked"))
	}
	sv.ids = nil
	return sv, nil
}

// checkEnd reports an export that ends before its last line, or holds
// more than its header announces.
func (s *sharevatSource) checkEnd() error {
	switch {
	case s.bases < s.h.Base:
		return formatf("the export is cut short: it holds %d of the %d base entities its header announces", s.bases, s.h.Base)
	case s.read < s.h.Ops:
		return formatf("the export is cut short: it holds %d of the %d ops its header announces", s.read, s.h.Ops)
	case s.read > s.h.Ops:
		return formatf("the export holds %d ops, more than the %d its header announces: it is damaged", s.read, s.h.Ops)
	}
	return io.EOF
}
