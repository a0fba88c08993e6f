package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"

	"github.com/spf13/pflag"
)

// jsonOp is one input line of `append` (docs/design.md §11).
type jsonOp struct {
	OpID           string          `json:"op_id"`
	Kind           string          `json:"kind"`
	Key            string          `json:"key"`
	Body           json.RawMessage `json:"body"`
	DependsOn      []string        `json:"depends_on"`
	ExpectedCursor *uint64         `json:"expected_cursor"`
	Delete         bool            `json:"delete"`
}

// maxLine bounds one input line (a body of 1 MiB and some room).
const maxLine = 64 << 20

var appendCommand = command{
	name:    "append",
	args:    "[--file F] < ops.jsonl",
	summary: "append ops (JSON Lines) to a share",
	long: `One op per line: {"op_id","kind","key","body","depends_on","expected_cursor","delete"}.
The ops are first stored in the token's durable outbox (under --state), then
sent; an op without op_id gets a random one when it is stored. If append is
killed or times out, 'sharevat flush' sends what is left, without sending
anything twice; re-running the same input is safe when it has op ids.`,
	setup: func(fs *pflag.FlagSet) runner {
		var cf clientFlags
		var sf stateFlags
		var file string
		cf.register(fs)
		sf.register(fs)
		fs.StringVar(&file, "file", "", "read ops from this JSON Lines file instead of stdin")
		return func(ctx context.Context, env *Env) error {
			if sf.batch < 1 {
				return usagef("--batch must be at least 1")
			}
			ops, err := readOps(env, file)
			if err != nil {
				return err
			}
			// --timeout bounds the sending, not the reading of the input
			// nor the storing (appendOps starts it once the ops are stored).
			cf.resolve(env)
			return appendOps(ctx, env, &cf, &sf, ops)
		}
	},
}

// readOps parses the JSON Lines input.
func readOps(env *Env, file string) ([]sharevat.Op, error) {
	in := env.Stdin
	if file != "" {
		f, err := openOpsFile(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	return parseOps(in)
}

// openOpsFile opens --file; a file that is not there is a usage error
// (exit 2) naming the path.
func openOpsFile(file string) (*os.File, error) {
	f, err := os.Open(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, usagef("--file %q: no such file", file)
	case err != nil:
		return nil, fmt.Errorf("--file: %w", err)
	}
	return f, nil
}

func parseOps(in io.Reader) ([]sharevat.Op, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var ops []sharevat.Op
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue // blank lines, and a CRLF file's empty lines
		}
		op, err := parseOp(sc.Bytes())
		if err != nil {
			return nil, usagef("line %d: %v", line, err)
		}
		ops = append(ops, op)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading ops: %w", err)
	}
	if len(ops) == 0 {
		return nil, usagef("no ops given (one JSON object per line on stdin or --file)")
	}
	return ops, nil
}

// parseOp parses one line; its errors say in plain words what is wrong.
func parseOp(line []byte) (sharevat.Op, error) {
	j, err := decodeOp(line)
	if err != nil {
		return sharevat.Op{}, err
	}
	op := sharevat.Op{OpID: j.OpID, Kind: j.Kind, Key: j.Key, DependsOn: j.DependsOn, Delete: j.Delete}
	if len(j.Body) > 0 && string(j.Body) != "null" {
		op.Body = []byte(j.Body)
	}
	if j.ExpectedCursor != nil {
		c := sharevat.Cursor(*j.ExpectedCursor)
		op.ExpectedCursor = &c
	}
	if msg := apply.CheckShape(&op); msg != "" {
		return sharevat.Op{}, errors.New(msg)
	}
	return op, nil
}

// decodeOp decodes one JSON object into a jsonOp, refusing unknown
// fields and anything after the object.
func decodeOp(line []byte) (jsonOp, error) {
	var j jsonOp
	trimmed := bytes.TrimSpace(line)
	if trimmed[0] != '{' {
		if json.Valid(trimmed) {
			return j, fmt.Errorf("an op must be a JSON object, got %s", jsonKind(trimmed[0]))
		}
		return j, errors.New("not JSON: an op is one JSON object per line, like {\"kind\":\"message\",\"key\":\"k\",\"body\":{}}")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return j, opError(err)
	}
	if rest := trimmed[dec.InputOffset():]; len(bytes.TrimSpace(rest)) > 0 {
		return j, errors.New("more after the op's closing brace: one op per line")
	}
	return j, nil
}

// jsonKind names the JSON value that starts with c.
func jsonKind(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// opFieldTypes says what each field of an op must be.
var opFieldTypes = map[string]string{
	"op_id": "a string", "kind": "a string", "key": "a string",
	"depends_on":      "an array of op id strings",
	"expected_cursor": "a whole number from 0 to 18446744073709551615",
	"delete":          "true or false",
}

// opError rewords a decoding error without Go type names.
func opError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("not valid JSON at byte %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))
	case errors.As(err, &typ):
		field, _, _ := strings.Cut(typ.Field, ".")
		if want, ok := opFieldTypes[field]; ok {
			return fmt.Errorf("field %q must be %s, got %s", field, want, typ.Value)
		}
		return fmt.Errorf("field %q has the wrong type (%s)", field, typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errors.New("the op's JSON object is not closed on this line: the input is JSON Lines, one whole JSON object per line (a pretty-printed op spread over several lines can be joined with 'jq -c .')")
	}
	if msg := strings.TrimPrefix(err.Error(), "json: "); strings.HasPrefix(msg, "unknown field ") {
		return fmt.Errorf("%s (an op has op_id, kind, key, body, depends_on, expected_cursor, delete)", msg)
	}
	return fmt.Errorf("not a JSON op: %s", strings.TrimPrefix(err.Error(), "json: "))
}

// appendOps stores the ops in the outbox, durably, then flushes it within
// --timeout (which starts once they are stored) and
// reports on this run's ops (and on older pending ops sent along).
func appendOps(ctx context.Context, env *Env, cf *clientFlags, sf *stateFlags, ops []sharevat.Op) error {
	token, err := cf.theToken()
	if err != nil {
		return err
	}
	path, err := sf.path(env, token)
	if err != nil {
		return err
	}
	t := newTally()
	ob, err := sf.openOutbox(env, path, t)
	if err != nil {
		return fmt.Errorf("%w; nothing was stored", err)
	}
	defer ob.Close()
	before, err := pendingIDs(ob)
	if err != nil {
		return err
	}
	ids, err := ob.Enqueue(ctx, ops...)
	if sharevat.ErrorCode(err) == sharevat.ETooLarge {
		return &rejectedError{n: 1, msg: sharevat.ErrorMessage(err) + "; nothing was stored"}
	}
	if err != nil {
		return err
	}
	older := without(before, ids)
	t.p = newProgress(env, &sf.progress, len(ids)+len(older))
	t.p.stored(len(ids), path)
	ctx, cancel := withTimeout(ctx, cf.timeout)
	defer cancel()
	return sendAndReport(ctx, env, cf, ob, t, newRedeemer(cf, token, t), ids, older)
}

// without returns the ids of a that are not in b.
func without(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, id := range b {
		in[id] = true
	}
	var out []string
	for _, id := range a {
		if !in[id] {
			out = append(out, id)
		}
	}
	return out
}

// jsonResult is one op's outcome in `append --json`.
type jsonResult struct {
	OpID    string `json:"op_id"`
	Status  string `json:"status"`
	Cursor  uint64 `json:"cursor,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

func ackJSON(ack sharevat.Ack) map[string]any {
	results := make([]jsonResult, len(ack.Results))
	for i, r := range ack.Results {
		results[i] = jsonResult{OpID: r.OpID, Status: r.Status.String(), Cursor: uint64(r.Cursor), Reason: r.Reason.String(), Message: r.Message}
	}
	return map[string]any{"head": ack.Head, "applied": ack.Applied, "duplicates": ack.Duplicates, "rejected": ack.Rejected, "results": results}
}

func printAck(w io.Writer, ack sharevat.Ack) {
	fmt.Fprintf(w, "applied %d, duplicate %d, rejected %d; head is %d\n", ack.Applied, ack.Duplicates, ack.Rejected, ack.Head)
	printRejected(w, ack)
}

func printRejected(w io.Writer, ack sharevat.Ack) {
	for _, r := range ack.Results {
		if r.Status == sharevat.StatusRejected {
			fmt.Fprintf(w, "  %s rejected: %s (%s)\n", r.OpID, r.Reason, r.Message)
		}
	}
}
