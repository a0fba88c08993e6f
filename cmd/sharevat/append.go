package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"sharevat"
	"sharevat/client"
)

// jsonOp is one input line of `append` (DESIGN.md §11).
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

func runAppend(ctx context.Context, env *Env, args []string) error {
	var cf clientFlags
	var file string
	var batchSize int
	fs := flag.NewFlagSet("append", flag.ContinueOnError)
	cf.register(fs)
	fs.StringVar(&file, "file", "", "read ops from this JSON Lines file instead of stdin")
	fs.IntVar(&batchSize, "batch", 500, "ops per append call")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: sharevat append [--file F] < ops.jsonl

One op per line: {"op_id","kind","key","body","depends_on","expected_cursor","delete"}.
Ops without op_id get a random one; give op ids to make re-running safe.`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, env, args); err != nil {
		return err
	}
	if batchSize < 1 {
		return usagef("--batch must be at least 1")
	}
	cf.resolve(env)
	ops, err := readOps(env, file)
	if err != nil {
		return err
	}
	ctx, cancel := withTimeout(ctx, cf.timeout)
	defer cancel()
	return appendOps(ctx, env, &cf, ops, batchSize)
}

// readOps parses the JSON Lines input.
func readOps(env *Env, file string) ([]sharevat.Op, error) {
	in := env.Stdin
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	return parseOps(in)
}

func parseOps(in io.Reader) ([]sharevat.Op, error) {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var ops []sharevat.Op
	for line := 1; sc.Scan(); line++ {
		if len(sc.Bytes()) == 0 {
			continue
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

func parseOp(line []byte) (sharevat.Op, error) {
	var j jsonOp
	if err := json.Unmarshal(line, &j); err != nil {
		return sharevat.Op{}, fmt.Errorf("not a JSON op: %v", err)
	}
	if j.OpID == "" {
		j.OpID = randomID("op-")
	}
	op := sharevat.Op{OpID: j.OpID, Kind: j.Kind, Key: j.Key, DependsOn: j.DependsOn, Delete: j.Delete}
	if len(j.Body) > 0 && string(j.Body) != "null" {
		op.Body = []byte(j.Body)
	}
	if j.ExpectedCursor != nil {
		c := sharevat.Cursor(*j.ExpectedCursor)
		op.ExpectedCursor = &c
	}
	return op, nil
}

func randomID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// appendOps sends the ops in batches and reports the combined ack.
func appendOps(ctx context.Context, env *Env, cf *clientFlags, ops []sharevat.Op, size int) error {
	conn, sh, err := cf.restore(ctx)
	if err != nil {
		return denied(err)
	}
	defer conn.Close()
	app, err := sh.Appender(ctx)
	if err != nil {
		return err
	}
	total, err := sendBatches(ctx, app, sh.Access.Epoch, ops, size)
	if err != nil {
		return err
	}
	return reportAck(env, cf.json, total)
}

func sendBatches(ctx context.Context, app *client.Appender, epoch sharevat.Epoch, ops []sharevat.Op, size int) (sharevat.Ack, error) {
	var total sharevat.Ack
	for start := 0; start < len(ops); start += size {
		b := &sharevat.Batch{BatchID: randomID("batch-"), Epoch: epoch, Ops: ops[start:min(start+size, len(ops))]}
		for i := range b.Ops {
			b.Ops[i].Seq = uint32(i)
		}
		ack, err := app.Append(ctx, b)
		if err != nil {
			return total, err
		}
		total.Head = ack.Head
		total.Results = append(total.Results, ack.Results...)
	}
	total.Count()
	return total, nil
}

// jsonResult is one op's outcome in `append --json`.
type jsonResult struct {
	OpID    string `json:"op_id"`
	Status  string `json:"status"`
	Cursor  uint64 `json:"cursor,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

func reportAck(env *Env, asJSON bool, ack sharevat.Ack) error {
	if asJSON {
		writeJSON(env.Stdout, ackJSON(ack))
	} else {
		printAck(env.Stdout, ack)
	}
	if ack.Rejected > 0 {
		return &rejectedError{n: ack.Rejected}
	}
	return nil
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
	for _, r := range ack.Results {
		if r.Status == sharevat.StatusRejected {
			fmt.Fprintf(w, "  %s rejected: %s (%s)\n", r.OpID, r.Reason, r.Message)
		}
	}
}
