package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharevat/sharevat"
)

// DefaultMaxLine is the default longest message of the stdio transport:
// a whole append batch at the vat's default limits, with room for its
// JSON.
const DefaultMaxLine = 9 << 20

// NewStdioTransport returns the transport of `sharevat mcp`: newline-
// delimited JSON-RPC on r and w, as mcp.IOTransport, except that a line
// that is not JSON is answered with a parse error (-32700) and one longer
// than maxLine (<= 0: DefaultMaxLine) with an invalid request (-32600)
// naming the limit, and skipped: the session keeps serving. A line over
// the limit is discarded as it is read, never held whole.
//
// An append_ops call of more than maxOps ops (<= 0: the default limits')
// is answered with an invalid-params error naming the limit before the
// SDK decodes it (opcount.go).
func NewStdioTransport(r io.Reader, w io.Writer, maxLine, maxOps int) mcp.Transport {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	if maxOps <= 0 {
		maxOps = sharevat.DefaultLimits().MaxOpsPerBatch
	}
	return &stdio{r: r, w: &lockedWriter{w: w}, max: maxLine, maxOps: maxOps}
}

type stdio struct {
	r      io.Reader
	w      *lockedWriter
	max    int
	maxOps int
}

// Connect implements mcp.Transport. The SDK reads the lines the filter
// passes on through a pipe; the filter's goroutine ends when r ends or,
// after the session has closed the pipe, with the next line (a blocked
// read of stdin cannot be cut short, as in the SDK's own transport).
func (s *stdio) Connect(ctx context.Context) (mcp.Connection, error) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(s.filter(pw)) }()
	return (&mcp.IOTransport{Reader: pr, Writer: s.w, MaxLineLength: s.max + 2}).Connect(ctx)
}

// filter copies each JSON line of s.r to out and answers the others.
func (s *stdio) filter(out io.Writer) error {
	br := bufio.NewReaderSize(s.r, 64<<10)
	for {
		line, long, err := readLine(br, s.max)
		switch {
		case long:
			s.answer(jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid: the message is over this server's limit of %d bytes", s.max))
		case len(bytes.TrimSpace(line)) == 0:
		case !json.Valid(line):
			s.answer(jsonrpc.CodeParseError, "invalid: the message is not JSON")
		case s.overOps(line):
		default:
			if _, werr := out.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line (without its newline) of at most max bytes;
// long reports a longer one, whose bytes are discarded as they come.
func readLine(br *bufio.Reader, max int) (line []byte, long bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(line)+len(chunk) > max+1 {
				line, long = nil, true
			} else {
				line = append(line, chunk...)
			}
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), long, err
		}
	}
}

// overOps answers line itself when it is an append_ops of too many ops.
func (s *stdio) overOps(line []byte) bool {
	id, over := overOps(line, s.maxOps)
	if over {
		_, _ = s.w.Write(append(tooManyOps(id, s.maxOps), '\n'))
	}
	return over
}

// answer writes a JSON-RPC error with a null id.
func (s *stdio) answer(code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	_, _ = s.w.Write(append(b, '\n')) // a peer that stopped reading ends the session anyway
}

// lockedWriter serialises the SDK's messages and the filter's answers,
// each written whole; Close leaves the underlying writer open.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (*lockedWriter) Close() error { return nil }
