package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"sharevat"
)

// The export format (docs/export-format.md): JSON Lines, a header object
// on the first line, then one object per op in cursor order. Version 1.
const (
	exportFormat  = "sharevat-export"
	exportVersion = 1
)

// exportHeader is the first line of an export.
type exportHeader struct {
	Format     string      `json:"format"`
	Version    int         `json:"version"`
	ExportID   string      `json:"export_id"`
	ExportedAt string      `json:"exported_at"`
	Share      exportShare `json:"share"`
	Head       uint64      `json:"head"`
	Ops        uint64      `json:"ops"`
	// Settings are the share's, when the token could read them.
	Settings *exportSettings `json:"settings,omitempty"`
}

// exportSettings are a share's privacy policy and retention.
type exportSettings struct {
	Privacy   string `json:"privacy"`
	RetainOps uint64 `json:"retain_ops,omitempty"`
	RetainFor string `json:"retain_for,omitempty"` // a Go duration, e.g. "720h0m0s"
}

// exportShare is the exported share's metadata.
type exportShare struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	ProjectID  string `json:"project_id"`
	Directory  string `json:"directory"`
	Version    string `json:"version"`
	Status     string `json:"status"`
	CreatedAt  string `json:"created_at,omitempty"`
	UpdatedAt  string `json:"updated_at,omitempty"`
	StatusAt   string `json:"status_at,omitempty"`
	ParentID   string `json:"parent_id,omitempty"`
	ForkCursor uint64 `json:"fork_cursor,omitempty"`
}

// exportOp is one op line without its body, which writeOpLine appends
// byte for byte (encoding/json would re-space it).
type exportOp struct {
	Cursor     uint64 `json:"cursor"`
	OpID       string `json:"op_id"`
	BatchID    string `json:"batch_id"`
	Seq        uint32 `json:"seq"`
	Kind       string `json:"kind"`
	Key        string `json:"key"`
	Delete     bool   `json:"delete"`
	At         string `json:"at"`
	BodyBase64 string `json:"body_base64,omitempty"`
}

// importOp is one op line as read: Body keeps the exact bytes of the
// body's JSON value ("null" included); nil when absent.
type importOp struct {
	exportOp
	Body json.RawMessage `json:"body"`
}

// rfc3339 formats a time for the format; the zero time is "".
func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// shareHeader describes sh for the header.
func shareHeader(sh sharevat.Share) exportShare {
	m := sh.Meta
	return exportShare{
		ID: string(sh.ID), Title: m.Title, ProjectID: m.ProjectID, Directory: m.Directory, Version: m.Version,
		Status: m.Status.String(), CreatedAt: rfc3339(m.CreatedAt), UpdatedAt: rfc3339(m.UpdatedAt),
		StatusAt: rfc3339(m.StatusAt), ParentID: string(sh.ParentID), ForkCursor: uint64(sh.ForkCursor),
	}
}

// settingsHeader describes s for the header.
func settingsHeader(s sharevat.Settings) *exportSettings {
	out := &exportSettings{Privacy: s.Privacy.String(), RetainOps: s.RetainOps}
	if s.RetainFor > 0 {
		out.RetainFor = s.RetainFor.String()
	}
	return out
}

// settings turns the header's settings back into a share's; ok is
// false when the export has none.
func (e *exportSettings) settings() (s sharevat.Settings, ok bool, err error) {
	if e == nil {
		return s, false, nil
	}
	if s.Privacy, err = sharevat.ParsePrivacy(e.Privacy); err != nil {
		return s, false, usagef("the export's settings: %s", sharevat.ErrorMessage(err))
	}
	s.RetainOps = e.RetainOps
	if e.RetainFor != "" {
		if s.RetainFor, err = time.ParseDuration(e.RetainFor); err != nil || s.RetainFor < 0 {
			return s, false, usagef("the export's settings: retain_for %q is not a duration", e.RetainFor)
		}
	}
	return s, true, nil
}

// verbatimBody reports whether b can be written as the line's JSON
// value byte for byte and read back identical: valid JSON and UTF-8, no
// line break (which can only be white space between tokens), and no
// white space around it (a decoder drops that).
func verbatimBody(b []byte) bool {
	return len(b) > 0 && utf8.Valid(b) && json.Valid(b) &&
		!bytes.ContainsAny(b, "\r\n") && len(bytes.TrimSpace(b)) == len(b)
}

// marshalLine encodes v without escaping <, > and & (the format is read
// by JSON decoders, not embedded in HTML).
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// opLine encodes one log entry as its line, newline included.
func opLine(e *sharevat.Entry) ([]byte, error) {
	op := exportOp{
		Cursor: uint64(e.Cursor), OpID: e.OpID, BatchID: e.BatchID, Seq: e.Seq,
		Kind: e.Kind, Key: e.Key, Delete: e.Delete, At: rfc3339(e.At),
	}
	verbatim := verbatimBody(e.Body)
	if len(e.Body) > 0 && !verbatim {
		op.BodyBase64 = base64.StdEncoding.EncodeToString(e.Body)
	}
	line, err := marshalLine(op)
	if err != nil {
		return nil, err
	}
	if verbatim {
		line = append(line[:len(line)-1], `,"body":`...)
		line = append(append(line, e.Body...), '}')
	}
	return append(line, '\n'), nil
}

// parseHeader decodes a header line; ok is false when the line is not a
// sharevat export's header at all (another format).
func parseHeader(line []byte) (h exportHeader, ok bool, err error) {
	if err := json.Unmarshal(line, &h); err != nil || h.Format != exportFormat {
		return h, false, nil
	}
	switch {
	case h.Version < 1:
		return h, true, usagef("the export's header has no valid version")
	case h.Version > exportVersion:
		return h, true, usagef("the export is format version %d; this sharevat reads version %d and older: use a newer sharevat", h.Version, exportVersion)
	}
	return h, true, nil
}

// parseOpLine decodes one op line into the op to append.
func parseOpLine(line []byte) (importOp, sharevat.Op, error) {
	var j importOp
	if err := json.Unmarshal(line, &j); err != nil {
		return j, sharevat.Op{}, fmt.Errorf("not an op line: %s", opError(err))
	}
	op := sharevat.Op{OpID: j.OpID, Kind: j.Kind, Key: j.Key, Delete: j.Delete}
	switch {
	case j.OpID == "":
		return j, op, errors.New("the op has no op_id")
	case j.BodyBase64 != "" && j.Body != nil:
		return j, op, errors.New("the op has both body and body_base64")
	case j.BodyBase64 != "":
		b, err := base64.StdEncoding.DecodeString(j.BodyBase64)
		if err != nil {
			return j, op, errors.New("body_base64 is not base64")
		}
		op.Body = b
	case j.Body != nil:
		op.Body = []byte(j.Body)
	}
	return j, op, nil
}
