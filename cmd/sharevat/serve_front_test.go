package main_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestServeBusyPortWritesNothing: `serve` on a port another sharevat
// holds binds first and fails before it touches --data: no data
// directory, no admin token, no "admin token written" in its log; the
// error names the process holding the port (on Linux) and how to pick
// another.
func TestServeBusyPortWritesNothing(t *testing.T) {
	first := startServer(t, t.TempDir())
	addr := strings.TrimSuffix(strings.TrimPrefix(first.URL, "ws://"), "/rpc")
	data := filepath.Join(t.TempDir(), "fresh-data")

	_, stderr, code := cli(t, "", nil, "serve", "--listen", addr, "--data", data)
	assert.Equal(t, 1, code, stderr)
	assert.Contains(t, stderr, addr+" is already in use")
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	var next int
	_, err = fmt.Sscan(port, &next)
	require.NoError(t, err)
	assert.Contains(t, stderr, fmt.Sprintf("--listen 127.0.0.1:%d", next+1))
	if runtime.GOOS == "linux" {
		assert.Contains(t, stderr, fmt.Sprintf("by process %d (sharevat)", first.Cmd.Process.Pid))
	}
	assert.NotContains(t, stderr, "admin token written")
	_, err = os.Stat(data)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "serve on a busy port created %s: %v", data, err)
}

// TestServeIndexPage: GET / names every route and points to the docs,
// as plain text by default and as HTML (no script, a CSP, no-store) to a
// browser; any other unknown path is still 404.
func TestServeIndexPage(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	base := "http" + strings.TrimSuffix(strings.TrimPrefix(s.URL, "ws"), "/rpc")

	text, h := getIndex(t, base+"/", "")
	assert.Equal(t, "text/plain; charset=utf-8", h.Get("Content-Type"))
	html, h := getIndex(t, base+"/", "text/html,application/xhtml+xml")
	assert.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	assert.Contains(t, h.Get("Content-Security-Policy"), "default-src 'none'")
	assert.Equal(t, "no-store", h.Get("Cache-Control"))
	assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"))
	assert.NotContains(t, html, "<script")
	for _, body := range []string{text, html} {
		for _, route := range []string{"/rpc", "/capnweb", "/s/", "/healthz", "/metrics", "/backup", "README.md", "docs/deploy.md"} {
			assert.Contains(t, body, route)
		}
	}
	resp, err := http.Get(base + "/nothing-here")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

// getIndex GETs url with the Accept header accept, requires 200 and
// returns the body and headers.
func getIndex(t *testing.T, url, accept string) (string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return string(b), resp.Header
}
