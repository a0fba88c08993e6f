package main_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeURLAllInterfaces: listening on every interface, serve prints
// a URL a client can dial (127.0.0.1, not 0.0.0.0), says it listens on
// all interfaces, and warns that without TLS tokens cross the network in
// clear. The test dials loopback only.
func TestServeURLAllInterfaces(t *testing.T) {
	srv := startServer(t, t.TempDir(), "--listen", "0.0.0.0:0")
	require.True(t, strings.HasPrefix(srv.URL, "ws://127.0.0.1:"), srv.URL)
	log := srv.Log.String()
	assert.Contains(t, log, "sharevat: listening on all interfaces (")
	assert.Contains(t, log, "level=WARN")
	assert.Contains(t, log, "tokens cross the network in clear")

	resp, err := http.Get("http" + strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws"), "/rpc") + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the printed URL is dialable")
}

// TestServeNoWarnOnLoopback: on loopback, or beyond it with TLS, serve
// does not warn about tokens in clear.
func TestServeNoWarnOnLoopback(t *testing.T) {
	srv := startServer(t, t.TempDir())
	assert.NotContains(t, srv.Log.String(), "in clear")
	certFile, keyFile, _ := selfSigned(t, t.TempDir())
	srv = startServer(t, t.TempDir(), "--listen", "0.0.0.0:0", "--tls-cert", certFile, "--tls-key", keyFile)
	assert.True(t, strings.HasPrefix(srv.URL, "wss://127.0.0.1:"), srv.URL)
	assert.NotContains(t, srv.Log.String(), "in clear")
}
