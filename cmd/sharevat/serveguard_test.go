package main_test

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/proctest"

	"github.com/sharevat/sharevat/internal/servertest"
	srvconfig "github.com/sharevat/sharevat/server"
)

// TestServeOpenBeyondLoopback: `serve --open` on a listener beyond
// loopback is refused (exit 2, one line saying why and what to do):
// before, it started without a word, and with --listen 0.0.0.0 a
// DNS-rebinding page could create a share and get its owner token.
// --open-beyond-loopback opens it on purpose, only with --allowed-hosts
// (which refuses the rebound Host), and logs a warning.
func TestServeOpenBeyondLoopback(t *testing.T) {
	for _, listen := range []string{"0.0.0.0:0", ":0"} {
		s, err := proctest.Start(t, binary, nil, "serve", "--open", "--listen", listen, "--data", t.TempDir())
		require.Error(t, err, "serve --open --listen %s must not start", listen)
		assertExit(t, s, 2)
		assert.Contains(t, s.Log.String(), "is not a loopback address")
		assert.Contains(t, s.Log.String(), "--open-beyond-loopback")
	}
	s, err := proctest.Start(t, binary, nil, "serve", "--open", "--open-beyond-loopback", "--listen", "0.0.0.0:0", "--data", t.TempDir())
	require.Error(t, err, "--open-beyond-loopback without --allowed-hosts")
	assertExit(t, s, 2)
	assert.Contains(t, s.Log.String(), "needs --allowed-hosts")

	for _, listen := range []string{"127.0.0.1:0", "localhost:0"} {
		s, err := proctest.Start(t, binary, nil, "serve", "--open", "--listen", listen, "--data", t.TempDir())
		require.NoError(t, err, "--open on %s", listen)
		s.Stop(t)
	}

	wide := startServer(t, t.TempDir(), "--open", "--open-beyond-loopback", "--allowed-hosts", "127.0.0.1", "--listen", "0.0.0.0:0")
	assert.Contains(t, wide.Log.String(), "--open-beyond-loopback: anyone who can reach this address may create shares")
	port := portOf(t, wide.URL)
	_, resp, err := websocket.DefaultDialer.Dial(wide.URL, http.Header{"Host": {"evil.example:" + port}, "Origin": {"http://evil.example:" + port}})
	require.Error(t, err, "a rebound name is refused")
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
	out, stderr, code := cli(t, "", nil, "create", "--server", wide.URL, "--title", "wide")
	require.Equal(t, 0, code, stderr)
	assert.True(t, strings.HasPrefix(out, "svt1_"), "an open vat creates shares for its named hosts: %q", out)
}

// TestServeOriginScheme: an https:// Origin on a plain-http listener
// (and an http:// one on a TLS listener) is refused with 403 on every
// door, even when it names the request's Host: no page this server
// serves has that origin. Before, /rpc and /capnweb upgraded it. Behind a
// TLS proxy (X-Forwarded-Proto: https, or --public-url https://…) and
// for origins listed in --origins it passes. The servers run in-process
// (the guards are the server package's; serve only maps the flags).
func TestServeOriginScheme(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	host := "127.0.0.1:" + portOf(t, s.URL)
	for _, u := range []string{s.URL, webURL(s.URL)} {
		assert.Equal(t, http.StatusForbidden, upgrade(t, nil, u, "https://"+host, nil), "%s: https Origin on plain http", u)
		assert.Equal(t, http.StatusSwitchingProtocols, upgrade(t, nil, u, "http://"+host, nil), "%s: its own origin", u)
		assert.Equal(t, http.StatusSwitchingProtocols, upgrade(t, nil, u, "https://"+host, http.Header{"X-Forwarded-Proto": {"https"}}), "%s: behind a TLS proxy", u)
	}
	batch := "http" + strings.TrimPrefix(webURL(s.URL), "ws")
	req, err := http.NewRequest(http.MethodPost, batch, strings.NewReader(`["push",["pipeline",0,["ping"],[]]]`))
	require.NoError(t, err)
	req.Header.Set("Origin", "https://"+host)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "an HTTP batch: %s", body)

	public := servertest.Start(t, servertest.Options{Config: func(c *srvconfig.Config) {
		c.PublicURL, c.Origins = "https://vat.example", []string{"https://app.example"}
	}})
	assert.Equal(t, http.StatusSwitchingProtocols, upgrade(t, nil, public.URL, "https://app.example", nil), "listed in --origins")
	assert.Equal(t, http.StatusForbidden, upgrade(t, nil, public.URL, "https://other.example", nil), "the doors' own rule still holds")

	certFile, keyFile, cert := selfSigned(t, t.TempDir())
	secure := servertest.Start(t, servertest.Options{Config: func(c *srvconfig.Config) { c.TLSCert, c.TLSKey = certFile, keyFile }})
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	d := &websocket.Dialer{TLSClientConfig: &tls.Config{RootCAs: roots}}
	shost := "127.0.0.1:" + portOf(t, secure.URL)
	assert.Equal(t, http.StatusForbidden, upgrade(t, d, secure.URL, "http://"+shost, nil), "http Origin on TLS")
	assert.Equal(t, http.StatusSwitchingProtocols, upgrade(t, d, secure.URL, "https://"+shost, nil))
}

// TestServeLoopbackFlood: loopback addresses are exempt from
// --max-conns-per-ip, so one local peer holding 256 idle WebSockets (the
// default cap) does not lock another local client out: `create`
// through the CLI still works. Before, it was refused with 503 "too many
// connections from 127.0.0.1" until the flood closed. --max-conns still
// bounds the flood, and --per-ip-loopback counts loopback again.
func TestServeLoopbackFlood(t *testing.T) {
	const maxConns = 300
	s := startServer(t, t.TempDir(), "--max-conns", "300")
	flood := make([]*websocket.Conn, 0, maxConns)
	t.Cleanup(func() {
		for _, c := range flood {
			c.Close()
		}
	})
	for range 256 {
		c, _, err := websocket.DefaultDialer.Dial(s.URL, nil)
		require.NoError(t, err, "idle connection %d", len(flood)+1)
		flood = append(flood, c)
	}
	_, stderr, code := cli(t, "", nil, "create", "--server", s.URL, "--token-file", filepath.Join(s.Data, "admin.token"), "--title", "second")
	require.Equal(t, 0, code, "a second local client during the flood: %s", stderr)

	for len(flood) < maxConns {
		c, _, err := websocket.DefaultDialer.Dial(s.URL, nil)
		require.NoError(t, err, "connection %d of --max-conns", len(flood)+1)
		flood = append(flood, c)
	}
	_, resp, err := websocket.DefaultDialer.Dial(s.URL, nil)
	require.Error(t, err, "--max-conns bounds the flood")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	body, _ := io.ReadAll(resp.Body)
	assert.Contains(t, string(body), "too many connections, try again later")

	strict := startServer(t, t.TempDir(), "--max-conns-per-ip", "1", "--per-ip-loopback")
	c, _, err := websocket.DefaultDialer.Dial(strict.URL, nil)
	require.NoError(t, err)
	defer c.Close()
	_, resp, err = websocket.DefaultDialer.Dial(strict.URL, nil)
	require.Error(t, err, "--per-ip-loopback counts loopback")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
}

// upgrade dials a WebSocket to u with Origin origin and extra headers and
// returns the HTTP status of the handshake (101 when it upgraded).
func upgrade(t *testing.T, d *websocket.Dialer, u, origin string, extra http.Header) int {
	t.Helper()
	if d == nil {
		d = websocket.DefaultDialer
	}
	h := http.Header{"Origin": {origin}}
	for k, v := range extra {
		h[k] = v
	}
	ws, resp, err := d.Dial(u, h)
	if err == nil {
		ws.Close()
		return http.StatusSwitchingProtocols
	}
	require.NotNil(t, resp, "dial %s: %v", u, err)
	return resp.StatusCode
}

// portOf is the port of a server URL.
func portOf(t *testing.T, raw string) string {
	t.Helper()
	u, err := url.Parse(raw)
	require.NoError(t, err)
	return u.Port()
}

// assertExit checks that the server process exited with code.
func assertExit(t *testing.T, s *proctest.Server, code int) {
	t.Helper()
	var ee *exec.ExitError
	if assert.True(t, errors.As(s.Err(), &ee), "exit error: %v", s.Err()) {
		assert.Equal(t, code, ee.ExitCode(), s.Log.String())
	}
}
