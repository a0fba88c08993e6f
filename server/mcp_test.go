package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/internal/version"
)

// bearer adds a bearer token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeMCPDoor: the server serves MCP at /mcp on the same vat as
// /rpc: a share created over /rpc is read with its owner token as the
// bearer; initialize names the server's version; no bearer is refused 401, an Origin from another host 403 as
// on every door, and the token reaches no log.
func TestServeMCPDoor(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	token := createAndAppend(ctx, t, s)

	tr := &mcp.StreamableClientTransport{Endpoint: s.HTTP + "/mcp", HTTPClient: &http.Client{Transport: bearer(token)},
		MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Equal(t, version.String(), cs.InitializeResult().ServerInfo.Version, "serverInfo.version is `sharevat version`'s")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "share_info"})
	require.NoError(t, err)
	require.False(t, res.IsError, "%v", res.Content)
	assert.Equal(t, "in-process", res.StructuredContent.(map[string]any)["title"], "createAndAppend's title")

	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`
	for _, c := range []struct {
		header http.Header
		want   int
	}{
		{http.Header{}, http.StatusUnauthorized},
		{http.Header{"Authorization": {"Bearer " + token}, "Origin": {"http://evil.example"}}, http.StatusForbidden},
	} {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.HTTP+"/mcp", strings.NewReader(init))
		require.NoError(t, err)
		req.Header = c.header
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, c.want, resp.StatusCode, "%v", c.header)
	}
	assert.NotContains(t, s.Log.String(), token, "the token reaches no log")
}
