package exportfile

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/sharevat/sharevat"
)

// Log is what Write reads the ops from: the Go client's Reader.
type Log interface {
	// Read returns ops after cursor from, in cursor order, and the head.
	Read(ctx context.Context, from sharevat.Cursor, limit int) ([]sharevat.Entry, sharevat.Cursor, error)
}

// Export is one share to write.
type Export struct {
	Share    sharevat.Share     // its metadata (Head and Earliest are not used)
	Settings *sharevat.Settings // nil when the token could not read them
	// Earliest is the first cursor to write (1, or more after a
	// compaction) and Head the last.
	Earliest, Head sharevat.Cursor
	// Base is the state at Earliest-1: the entities the ops before
	// Earliest left (none when Earliest is 1).
	Base []sharevat.Entity
	// Progress, when set, is told how many ops each page wrote.
	Progress func(n int)
}

// Write writes x to w: the header, the base lines, then the ops
// Earliest..Head read from lg page by page. A share whose log starts at
// cursor 1 is written in version 1, which older readers read; one that
// was compacted in version 2.
func Write(ctx context.Context, w io.Writer, lg Log, x *Export) error {
	if x.Earliest < 1 {
		x.Earliest = 1
	}
	if x.Head+1 < x.Earliest {
		return fmt.Errorf("the head %d is before the earliest cursor %d", x.Head, x.Earliest)
	}
	if err := writeHeader(w, x); err != nil {
		return err
	}
	for i := range x.Base {
		line, err := BaseLine(&x.Base[i])
		if err != nil {
			return err
		}
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return writeLog(ctx, w, lg, x)
}

// writeHeader writes x's header line.
func writeHeader(w io.Writer, x *Export) error {
	h := Header{
		Format: Format, Version: 1, ExportID: newExportID(), ExportedAt: RFC3339(time.Now()),
		Share: ShareHeader(x.Share), Head: uint64(x.Head), Ops: uint64(x.Head - x.Earliest + 1),
	}
	if x.Earliest > 1 || len(x.Base) > 0 {
		h.Version, h.Earliest, h.Base = 2, uint64(x.Earliest), uint64(len(x.Base))
	}
	if x.Settings != nil {
		h.Settings = SettingsHeader(*x.Settings)
	}
	line, err := marshalLine(h)
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}

// writeLog pages through the log from x.Earliest to x.Head, writing
// each op.
func writeLog(ctx context.Context, w io.Writer, lg Log, x *Export) error {
	from := x.Earliest - 1
	for from < x.Head {
		entries, _, err := lg.Read(ctx, from, 0)
		if err != nil {
			return readError(err)
		}
		if len(entries) == 0 {
			return fmt.Errorf("the log ends at cursor %d, before the head %d it had when the export began", from, x.Head)
		}
		n := 0
		for i := range entries {
			if entries[i].Cursor > x.Head {
				break
			}
			if err := writeOp(w, &entries[i], from); err != nil {
				return err
			}
			from, n = entries[i].Cursor, n+1
		}
		if x.Progress != nil {
			x.Progress(n)
		}
	}
	return nil
}

// writeOp writes one op, which must follow the cursor prev.
func writeOp(w io.Writer, e *sharevat.Entry, prev sharevat.Cursor) error {
	if e.Cursor != prev+1 {
		return fmt.Errorf("the log jumps from cursor %d to %d", prev, e.Cursor)
	}
	line, err := OpLine(e)
	if err != nil {
		return err
	}
	_, err = w.Write(line)
	return err
}

// readError explains a read refused because the share was compacted
// while the export ran.
func readError(err error) error {
	if sharevat.ErrorCode(err) == sharevat.ECompacted {
		return fmt.Errorf("%w; the share was compacted while it was exported: export it again", err)
	}
	return err
}

// newExportID is 16 random bytes in hex: what tells one export from
// another (import resumes an interrupted import of the same export).
func newExportID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// OpLine encodes one log entry as its line, newline included.
func OpLine(e *sharevat.Entry) ([]byte, error) {
	op := opLine{
		Cursor: uint64(e.Cursor), OpID: e.OpID, BatchID: e.BatchID, Seq: e.Seq,
		Kind: e.Kind, Key: e.Key, Delete: e.Delete, At: RFC3339(e.At),
	}
	if len(e.Body) > 0 && !verbatimBody(e.Body) {
		op.BodyBase64 = base64.StdEncoding.EncodeToString(e.Body)
	}
	return withBody(op, e.Body)
}

// BaseLine encodes one entity of the base state as its line, newline
// included.
func BaseLine(e *sharevat.Entity) ([]byte, error) {
	b := baseLine{Base: true, Kind: e.Kind, Key: e.Key, Cursor: uint64(e.Cursor), At: RFC3339(e.At)}
	if len(e.Body) > 0 && !verbatimBody(e.Body) {
		b.BodyBase64 = base64.StdEncoding.EncodeToString(e.Body)
	}
	return withBody(b, e.Body)
}

// withBody encodes v and appends body as its last field, byte for byte,
// when it can stand on the line unchanged (else v carries it in base64).
func withBody(v any, body []byte) ([]byte, error) {
	line, err := marshalLine(v)
	if err != nil {
		return nil, err
	}
	if verbatimBody(body) {
		line = append(line[:len(line)-1], `,"body":`...)
		line = append(append(line, body...), '}')
	}
	return append(line, '\n'), nil
}
