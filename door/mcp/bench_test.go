package mcp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/proctest"
)

// sharevatBin is the real binary, for `sharevat mcp` over stdio.
var sharevatBin = proctest.Once{PkgDir: filepath.Join("..", "..", "cmd", "sharevat")}

// TestMain removes the binary the benchmarks built.
func TestMain(m *testing.M) {
	code := m.Run()
	sharevatBin.Cleanup()
	os.Exit(code)
}

// BenchmarkToolCall measures one tool call (read_ops of one op, a round
// trip through MCP to the vat and back) as an agent makes it: over stdio
// to the real `sharevat mcp` process, which calls the vat over /rpc; and
// over Streamable HTTP to /mcp, served by the vat's process. It reports
// the median (p50-µs) besides the mean.
//
//	go test -run '^$' -bench ToolCall -benchtime 2000x ./mcpdoor
func BenchmarkToolCall(b *testing.B) {
	b.Run("stdio", func(b *testing.B) {
		d := startDoor(b)
		tok := d.vat.MustCreate(b, "bench")
		cmd := exec.Command(sharevatBin.Binary(b), "mcp")
		cmd.Env = append(os.Environ(), "SHAREVAT_URL="+d.vat.URL, "SHAREVAT_TOKEN="+tok, "SHAREVAT_TOKEN_FILE=")
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
			Connect(ctxT(b), &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(b, err)
		b.Cleanup(func() { cs.Close() })
		benchCalls(b, cs)
	})
	b.Run("http", func(b *testing.B) {
		d := startDoor(b)
		benchCalls(b, d.session(b, d.vat.MustCreate(b, "bench")))
	})
}

// benchCalls appends one op, then times b.N read_ops calls.
func benchCalls(b *testing.B, cs *mcp.ClientSession) {
	must(b, cs, "append_ops", map[string]any{"ops": []any{map[string]any{"kind": "event", "body": map[string]any{"n": 1}}}}, nil)
	args := map[string]any{"limit": 1}
	must(b, cs, "read_ops", args, nil) // warm: the first call redeems the token
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		res, err := cs.CallTool(ctxT(b), &mcp.CallToolParams{Name: "read_ops", Arguments: args})
		lat = append(lat, time.Since(t0))
		if err != nil || res.IsError {
			b.Fatalf("read_ops: %v %v", err, res)
		}
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
}
