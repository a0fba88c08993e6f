package server_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestDNSRebinding: a vat listening on loopback answers only requests
// whose Host names loopback (or a name given with --allowed-hosts). A
// page on evil.example whose name an attacker points at 127.0.0.1 sends
// "Host: evil.example:PORT" and a matching Origin: before, the upgrade
// succeeded and, with --open, the page could create shares. (Moved
// in-process from cmd/sharevat's process tests.)
func TestDNSRebinding(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) { c.Open = true }})
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

	get(t, s.HTTP+"/metrics", http.Header{"Host": {"evil.example:" + port}}, http.StatusMisdirectedRequest)

	other := servertest.Start(t, servertest.Options{Config: func(c *server.Config) { c.Peers.AllowedHosts = []string{"vat.example"} }})
	ws, _, err := websocket.DefaultDialer.Dial(other.URL, http.Header{"Host": {"vat.example"}})
	if assert.NoError(t, err, "a name given with --allowed-hosts") {
		ws.Close()
	}
}
