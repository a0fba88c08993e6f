package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	mcpdoor "github.com/sharevat/sharevat/door/mcp"
	"github.com/sharevat/sharevat/internal/vattest"
)

// door is a vat with /mcp mounted on a real HTTP server.
type door struct {
	vat *vattest.Server
	url string // http://127.0.0.1:port/mcp
}

func startDoor(t testing.TB) *door {
	t.Helper()
	v := vattest.Start(t, vattest.Options{})
	h := mcpdoor.NewHTTPHandler(mcpdoor.HTTPOptions{
		Bootstrap:       func(peer string) capnp.Client { return v.Vat.Bootstrap(peer) },
		MaxRequestBytes: 64 << 10,
	})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &door{vat: v, url: srv.URL + "/mcp"}
}

// bearerRT adds a bearer token to every request.
type bearerRT struct{ token string }

func (b bearerRT) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// session opens an MCP session over Streamable HTTP with token.
func (d *door) session(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: d.url, HTTPClient: &http.Client{Transport: bearerRT{token}},
		MaxRetries: -1, DisableStandaloneSSE: true}
	cs, err := c.Connect(ctxT(t), tr, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// stdio opens an MCP session on NewServer over a Redeemer of token, as
// `sharevat mcp` runs, through in-memory transports.
func stdioSession(t *testing.T, src mcpdoor.Source) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	srv := mcpdoor.NewServer(src, mcpdoor.Options{})
	ss, err := srv.Connect(ctxT(t), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctxT(t), ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// call calls a tool and decodes its structured result into out; it
// returns the tool error's text, or "" when the call succeeded.
func call(t testing.TB, cs *mcp.ClientSession, name string, args any, out any) string {
	t.Helper()
	res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	if res.IsError {
		require.NotEmpty(t, res.Content)
		return res.Content[0].(*mcp.TextContent).Text
	}
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(b, out))
	}
	return ""
}

// must is call that must succeed.
func must(t testing.TB, cs *mcp.ClientSession, name string, args any, out any) {
	t.Helper()
	require.Empty(t, call(t, cs, name, args, out))
}
