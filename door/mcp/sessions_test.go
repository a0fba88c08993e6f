package mcp_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"capnproto.org/go/capnp/v3"
	"github.com/stretchr/testify/require"

	mcpdoor "github.com/sharevat/sharevat/door/mcp"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/rpc"
)

// startBounded is startDoor with session bounds and a memory pool (nil:
// none).
func startBounded(t *testing.T, max, perToken int, pool *rpc.MemoryPool) *door {
	t.Helper()
	v := vattest.Start(t, vattest.Options{})
	o := mcpdoor.HTTPOptions{
		Bootstrap:   func(peer string) capnp.Client { return v.Vat.Bootstrap(peer) },
		MaxSessions: max, MaxSessionsPerToken: perToken,
	}
	if pool != nil {
		o.Budget = pool
	}
	h := mcpdoor.NewHTTPHandler(o)
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return &door{vat: v, url: srv.URL + "/mcp"}
}

// initialize sends a bare initialize with token, as a peer opening a
// session does, and answers the status and body.
func initialize(t *testing.T, url, token string) (int, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestSessionsAreBounded: sessions are made before any token is judged,
// so a peer must not be able to open them without bound. Invariant: with
// 5 sessions at most, 3 per token: a token's 4th is refused 503 naming
// the per-token limit, any token's 6th 503 naming the server's, every
// live session is charged DefaultSessionMemory to the pool and given
// back when it ends (then a new one opens); with a pool of two
// sessions' memory (and room for request bodies), the third is refused 503 naming the budget. No
// answer quotes the token.
func TestSessionsAreBounded(t *testing.T) {
	pool := rpc.NewMemoryPool(1 << 30)
	d := startBounded(t, 5, 3, pool)
	a, b, c := d.vat.MustCreate(t, "a"), d.vat.MustCreate(t, "b"), d.vat.MustCreate(t, "c")
	first := d.session(t, a)
	d.session(t, a)
	d.session(t, a)
	status, msg := initialize(t, d.url, a)
	require.Equal(t, http.StatusServiceUnavailable, status, msg)
	require.Contains(t, msg, "this token holds its limit of 3 MCP sessions")
	d.session(t, b)
	d.session(t, b)
	status, msg = initialize(t, d.url, c)
	require.Equal(t, http.StatusServiceUnavailable, status, msg)
	require.Contains(t, msg, "the server holds its limit of 5 MCP sessions")
	require.NotContains(t, msg, c)
	require.Eventually(t, func() bool { return pool.Used() == 5*mcpdoor.DefaultSessionMemory },
		10*time.Second, 5*time.Millisecond, "five sessions' memory, and no request's body left charged")

	require.NoError(t, first.Close())
	require.Eventually(t, func() bool { return pool.Used() == 4*mcpdoor.DefaultSessionMemory },
		10*time.Second, 5*time.Millisecond, "an ended session's memory was not given back")
	must(t, d.session(t, c), "share_info", nil, nil)

	small := rpc.NewMemoryPool(2*mcpdoor.DefaultSessionMemory + 32<<10) // two sessions, and room for bodies
	d = startBounded(t, 100, 100, small)
	d.session(t, d.vat.MustCreate(t, "x"))
	d.session(t, d.vat.MustCreate(t, "y"))
	status, msg = initialize(t, d.url, d.vat.MustCreate(t, "z"))
	require.Equal(t, http.StatusServiceUnavailable, status, msg)
	require.Contains(t, msg, "memory budget is full")
}
