package mcpinterop_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/opencodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// TestOpencodeDelegatesThroughMCP is the end-to-end delegation through a
// real agent: the real opencode binary, configured with `sharevat mcp`
// as a local MCP server holding an owner token, and a mock model whose
// turn calls the grant tool for a read-only token. The grant succeeds;
// the token it answered (found in the tool result opencode sent back to
// the model) reads the share and is refused an append.
func TestOpencodeDelegatesThroughMCP(t *testing.T) {
	bin := server.Binary(t)
	srv := proctest.StartServe(t, bin)
	owner := createShare(t, bin, srv)

	model := opencodetest.NewModel(t,
		opencodetest.Turn{Tool: &opencodetest.ToolCall{Name: "sharevat_grant",
			Args: map[string]any{"scope": "read", "label": "helper agent", "ttlSeconds": 3600}}},
		opencodetest.Text("Granted a read-only token to the helper."))
	root := opencodetest.NewRoot(t, opencodetest.Config{Model: model, MCP: map[string]any{
		"sharevat": map[string]any{
			"type":        "local",
			"command":     []string{bin, "mcp"},
			"environment": map[string]string{"SHAREVAT_URL": srv.URL, "SHAREVAT_TOKEN": owner},
			"enabled":     true,
		},
	}})
	res, _ := root.Prompt("Give the helper agent read access to this session.")
	require.NoError(t, res.Err, "%s", res)

	reqs := model.Requests()
	require.True(t, offersTool(reqs, "sharevat_grant"), "opencode offered the model sharevat's tools: %v", toolNames(reqs))
	result := toolResult(reqs)
	require.NotEmpty(t, result, "opencode sent the grant tool's result back to the model:\n%s", res)
	token := regexp.MustCompile(`svt1_[A-Za-z0-9_-]+`).FindString(result)
	require.NotEmpty(t, token, "the grant answered a token: %s", result)
	assert.Contains(t, result, `"scope":"read"`)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, srv.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, token)
	require.NoError(t, err)
	defer sh.Release()
	assert.Equal(t, sharevat.ScopeRead, sh.Access.Scope)
	r, err := sh.Reader(ctx)
	require.NoError(t, err, "the delegated token reads")
	defer r.Release()
	_, _, err = r.Read(ctx, 0, 10)
	require.NoError(t, err)
	a, err := sh.Appender(ctx)
	if err == nil {
		defer a.Release()
		_, err = a.Append(ctx, &sharevat.Batch{BatchID: "b", Epoch: sh.Access.Epoch,
			Ops: []sharevat.Op{{OpID: "x", Kind: sharevat.KindEvent, Body: []byte(`{}`)}}})
	}
	assert.Equal(t, sharevat.EPermissionDenied, sharevat.ErrorCode(err), "the delegated token may not append: %v", err)
}

// createShare creates a share with the CLI and returns its owner token.
func createShare(t *testing.T, bin string, srv *proctest.Server) string {
	t.Helper()
	cmd := exec.Command(bin, "create", "--title", "delegation", "--json", "--timeout", "20s")
	cmd.Env = append(os.Environ(), "SHAREVAT_URL="+srv.URL,
		"SHAREVAT_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token"), "SHAREVAT_TOKEN=")
	out, err := cmd.Output()
	require.NoError(t, err)
	var created struct {
		Token string `json:"token"`
	}
	require.NoError(t, json.Unmarshal(out, &created))
	return created.Token
}

// offersTool reports whether a request offered the model the tool name.
func offersTool(reqs []opencodetest.ChatRequest, name string) bool {
	for _, n := range toolNames(reqs) {
		if n == name {
			return true
		}
	}
	return false
}

// toolNames lists the tools the requests offered.
func toolNames(reqs []opencodetest.ChatRequest) []string {
	var names []string
	for _, r := range reqs {
		for _, tl := range r.Tools {
			if f, ok := tl["function"].(map[string]any); ok {
				n, _ := f["name"].(string)
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			return names
		}
	}
	return names
}

// toolResult is the content of the first tool message the model got.
func toolResult(reqs []opencodetest.ChatRequest) string {
	for _, r := range reqs {
		for _, m := range r.Messages {
			if m["role"] != "tool" {
				continue
			}
			b, _ := json.Marshal(m["content"])
			return strings.ReplaceAll(string(b), `\"`, `"`)
		}
	}
	return ""
}
