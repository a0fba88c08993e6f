package hostile

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
)

// MCPStdioJunk is `sharevat mcp` (bin) fed junk on stdin, with token
// (junk or valid) against the vat at rpcURL: rounds times a line that is
// not JSON, a line over the 9 MiB limit, a 400,000-op append_ops and a
// tool call; every line must be answered and the process must live.
// The report's ends count the answers by JSON-RPC error code ("ok" for
// a result); Err says why it stopped early.
func MCPStdioJunk(ctx context.Context, bin, rpcURL, token string, rounds int) *Report {
	r := newReport("mcp-stdio-junk")
	defer r.timed()()
	cmd := exec.CommandContext(ctx, bin, "mcp")
	cmd.Env = append(os.Environ(), "SHAREVAT_URL="+rpcURL, "SHAREVAT_TOKEN="+token, "SHAREVAT_TOKEN_FILE=")
	in, err := cmd.StdinPipe()
	if err != nil {
		r.fail(err)
		return r
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.fail(err)
		return r
	}
	if err := cmd.Start(); err != nil {
		r.fail(err)
		return r
	}
	defer func() { in.Close(); _ = cmd.Wait() }()
	br := bufio.NewReaderSize(out, 1<<20)
	ops := strings.Repeat(`{"kind":"event"},`, 400_000)
	lines := []string{
		"this is not json",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}`,
		`{"x":"` + strings.Repeat("y", 10<<20) + `"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"append_ops","arguments":{"ops":[` + ops[:len(ops)-1] + `]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"share_info","arguments":{}}}`,
	}
	for i := 0; i < rounds && ctx.Err() == nil; i++ {
		for _, l := range lines {
			if err := r.stdioRound(in, br, l); err != nil {
				r.fail(fmt.Errorf("round %d: %w", i, err))
				return r
			}
		}
	}
	r.Detail = fmt.Sprintf("%d rounds of junk lines, an over-long line and a 400,000-op append_ops", rounds)
	return r
}

// stdioRound writes line and counts the answer it reads.
func (r *Report) stdioRound(in io.Writer, out *bufio.Reader, line string) error {
	if _, err := io.WriteString(in, line+"\n"); err != nil {
		return err
	}
	b, err := out.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("no answer (did it exit?): %w", err)
	}
	end := "ok"
	if i := strings.Index(string(b), `"code":`); i >= 0 && strings.Contains(string(b), `"error"`) {
		end = "error " + strings.SplitN(string(b[i+7:]), ",", 2)[0]
	}
	r.mu.Lock()
	r.Ends[end]++
	r.Sent++
	r.Received++
	r.mu.Unlock()
	return nil
}
