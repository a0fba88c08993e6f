package exportfile

import (
	"bytes"
	"encoding/json"
	"time"
	"unicode/utf8"

	"github.com/sharevat/sharevat"
)

// The format's name and versions (docs/export-format.md, "Versions").
// Version 1 holds a whole log from cursor 1; version 2 adds the base
// state and a log from the earliest cursor, for a compacted share.
// Write writes version 1 whenever the log starts at cursor 1, so that
// older readers read it.
const (
	Format  = "sharevat-export"
	Version = 2
)

// MaxLine bounds one line of an export (a body of 1 MiB and ample room).
const MaxLine = 64 << 20

// Header is the first line of an export.
type Header struct {
	Format     string `json:"format"`
	Version    int    `json:"version"`
	ExportID   string `json:"export_id"`
	ExportedAt string `json:"exported_at"`
	Share      Share  `json:"share"`
	Head       uint64 `json:"head"`
	Ops        uint64 `json:"ops"`
	// Earliest is the cursor of the first op line (version 2; 1 in
	// version 1).
	Earliest uint64 `json:"earliest,omitempty"`
	// Base is how many base lines precede the op lines (version 2).
	Base uint64 `json:"base,omitempty"`
	// Settings are the share's, when the token could read them.
	Settings *Settings `json:"settings,omitempty"`
}

// Settings are a share's privacy policy and retention.
type Settings struct {
	Privacy   string `json:"privacy"`
	RetainOps uint64 `json:"retain_ops,omitempty"`
	RetainFor string `json:"retain_for,omitempty"` // a Go duration, e.g. "720h0m0s"
}

// Share is the exported share's metadata.
type Share struct {
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

// opLine is one op line without its body, which opLine appends byte for
// byte (encoding/json would re-space it).
type opLine struct {
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

// baseLine is one base line (version 2) without its body: an entity of
// the state at the earliest cursor minus one.
type baseLine struct {
	Base       bool   `json:"base"` // always true: what tells it from an op line
	Kind       string `json:"kind"`
	Key        string `json:"key"`
	Cursor     uint64 `json:"cursor"` // the compacted op that last set it
	At         string `json:"at"`
	BodyBase64 string `json:"body_base64,omitempty"`
}

// readLine is an op or base line as read: Body keeps the exact bytes of
// the body's JSON value ("null" included); nil when absent.
type readLine struct {
	opLine
	Base bool            `json:"base"`
	Body json.RawMessage `json:"body"`
}

// RFC3339 formats a time for the format; the zero time is "".
func RFC3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// ShareHeader describes sh for the header.
func ShareHeader(sh sharevat.Share) Share {
	m := sh.Meta
	return Share{
		ID: string(sh.ID), Title: m.Title, ProjectID: m.ProjectID, Directory: m.Directory, Version: m.Version,
		Status: m.Status.String(), CreatedAt: RFC3339(m.CreatedAt), UpdatedAt: RFC3339(m.UpdatedAt),
		StatusAt: RFC3339(m.StatusAt), ParentID: string(sh.ParentID), ForkCursor: uint64(sh.ForkCursor),
	}
}

// SettingsHeader describes s for the header.
func SettingsHeader(s sharevat.Settings) *Settings {
	out := &Settings{Privacy: s.Privacy.String(), RetainOps: s.RetainOps}
	if s.RetainFor > 0 {
		out.RetainFor = s.RetainFor.String()
	}
	return out
}

// Parse turns the header's settings back into a share's; ok is false
// when the export has none (e is nil).
func (e *Settings) Parse() (s sharevat.Settings, ok bool, err error) {
	if e == nil {
		return s, false, nil
	}
	if s.Privacy, err = sharevat.ParsePrivacy(e.Privacy); err != nil {
		return s, false, formatf("the export's settings: %s", sharevat.ErrorMessage(err))
	}
	s.RetainOps = e.RetainOps
	if e.RetainFor != "" {
		if s.RetainFor, err = time.ParseDuration(e.RetainFor); err != nil || s.RetainFor < 0 {
			return s, false, formatf("the export's settings: retain_for %q is not a duration", e.RetainFor)
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
