package main_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDNSRebinding: a vat listening on loopback answers only requests
// whose Host names loopback (or a name given with --allowed-hosts). A
// page on evil.example whose name an attacker points at 127.0.0.1 sends
// "Host: evil.example:PORT" and a matching Origin: before, the upgrade
// succeeded and, with --open, the page could create shares.
func TestDNSRebinding(t *testing.T) {
	s := startServer(t, t.TempDir(), "--open")
	u, err := url.Parse(s.URL)
	require.NoError(t, err)
	port := u.Port()
	dial := func(host, origin string) (*http.Response, error) {
		h := http.Header{}
		h.Set("Host", host)
		if origin != "" {
			h.Set("Origin", origin)
		}
		ws, resp, err := websocket.DefaultDialer.Dial(s.URL, h)
		if err == nil {
			ws.Close()
		}
		return resp, err
	}
	resp, err := dial("evil.example:"+port, "http://evil.example:"+port)
	require.Error(t, err, "a rebound name is refused")
	assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)

	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST:" + port} {
		_, err := dial(host, "http://"+host)
		assert.NoError(t, err, "loopback name %s", host)
	}

	req, err := http.NewRequest("GET", strings.Replace(strings.Replace(s.URL, "ws:", "http:", 1), "/rpc", "/metrics", 1), nil)
	require.NoError(t, err)
	req.Host = "evil.example:" + port
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusMisdirectedRequest, res.StatusCode, "/metrics is guarded too")

	other := startServer(t, t.TempDir(), "--allowed-hosts", "vat.example")
	ws, _, err := websocket.DefaultDialer.Dial(other.URL, http.Header{"Host": {"vat.example"}})
	if assert.NoError(t, err, "a name given with --allowed-hosts") {
		ws.Close()
	}
}
