package mcp_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/hostile"
)

// rawStdio is a `sharevat mcp` process spoken to line by line.
type rawStdio struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRawStdio(t *testing.T, url, token string) *rawStdio {
	t.Helper()
	cmd := exec.Command(sharevatBin.Binary(t), "mcp")
	cmd.Env = append(os.Environ(), "SHAREVAT_URL="+url, "SHAREVAT_TOKEN="+token, "SHAREVAT_TOKEN_FILE=")
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Wait()
	})
	return &rawStdio{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

// reply is a JSON-RPC answer.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// send writes line and reads the next answer.
func (s *rawStdio) send(t *testing.T, line string) reply {
	t.Helper()
	_, err := io.WriteString(s.in, line+"\n")
	require.NoError(t, err)
	b, err := s.out.ReadBytes('\n')
	require.NoError(t, err, "sharevat mcp gave no answer (did it exit?)")
	var r reply
	require.NoError(t, json.Unmarshal(b, &r), "%s", b)
	return r
}

// TestStdioKeepsServing: `sharevat mcp` exited on one line that was not
// JSON, and a 400,000-op append_ops answered "internal: internal error"
// after peaking at 546 MB. Invariant: a line that is not JSON answers a
// parse error (-32700), a line over the 9 MiB limit an invalid request
// (-32600) naming the limit, an append_ops of 400,000 ops an invalid
// params error (-32602) naming the 1,000-op limit, with the process's
// peak RSS under 256 MiB; a second initialize an invalid request
// (-32600, not the SDK's code 0); and the session serves share_info
// after each.
func TestStdioKeepsServing(t *testing.T) {
	d := startDoor(t)
	s := startRawStdio(t, d.vat.URL, d.vat.MustCreate(t, "stdio"))

	r := s.send(t, "this is not json")
	require.NotNil(t, r.Error)
	assert.Equal(t, -32700, r.Error.Code)

	r = s.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.Nil(t, r.Error, "initialize after a bad line")
	_, err := io.WriteString(s.in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(t, err)
	r = s.send(t, `{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	require.NotNil(t, r.Error, "a second initialize")
	assert.Equal(t, -32600, r.Error.Code, "an error has a JSON-RPC code, never 0: %s", r.Error.Message)

	r = s.send(t, `{"x":"`+strings.Repeat("y", 10<<20)+`"}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, -32600, r.Error.Code)
	assert.Contains(t, r.Error.Message, fmt.Sprint(9<<20))

	ops := strings.Repeat(`{"kind":"event"},`, 400_000)
	r = s.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"append_ops","arguments":{"ops":[`+ops[:len(ops)-1]+`]}}}`)
	require.NotNil(t, r.Error)
	assert.Equal(t, -32602, r.Error.Code)
	assert.Contains(t, r.Error.Message, "at most 1000 ops")
	assert.Equal(t, "2", string(r.ID))
	peak, err := hostile.ReadHWM(s.cmd.Process.Pid)
	require.NoError(t, err)
	t.Logf("sharevat mcp peak RSS after a 400,000-op append_ops: %s", hostile.MiB(peak))
	assert.Less(t, peak, int64(256<<20))

	r = s.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"share_info","arguments":{}}}`)
	require.Nil(t, r.Error)
	assert.Contains(t, string(r.Result), `"title":"stdio"`)
}
