package server_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/server"
	"github.com/sharevat/sharevat/sturdyref"
)

// These tests moved in-process from cmd/sharevat's process tests
// (serve_web_test.go, serveguard_test.go) with the same assertions.

// webURL is the /capnweb URL of the server whose /rpc URL is rpcURL.
func webURL(rpcURL string) string { return strings.TrimSuffix(rpcURL, "/rpc") + "/capnweb" }

// TestServeCapnWebDoor: the server serves /capnweb beside /rpc, on the
// same vat: a share created over /rpc is restored over Cap'n Web with
// its owner token, a bad token is refused in the vat's words, and an
// Origin from another host is refused as at /rpc.
func TestServeCapnWebDoor(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	token := createAndAppend(ctx, t, s)

	c, err := capnweb.Dial(ctx, webURL(s.URL), nil, nil)
	require.NoError(t, err)
	defer c.Close()
	res, err := c.Main().Call(ctx, "restore", token)
	require.NoError(t, err)
	info, _ := res.(*capnweb.Object).Get("info")
	title, _ := info.(*capnweb.Object).Get("meta")
	got, _ := title.(*capnweb.Object).Get("title")
	assert.Equal(t, "in-process", got, "createAndAppend's title")

	_, err = c.Main().Call(ctx, "restore", vattest.WrongSecret(token))
	var werr *capnweb.Error
	require.ErrorAs(t, err, &werr)
	assert.Equal(t, "unauthorized: invalid or expired token", werr.Message)
	assert.NotContains(t, s.Log.String(), token, "the token reaches no log")

	h := http.Header{"Origin": {"http://evil.example"}}
	_, resp, err := websocket.DefaultDialer.Dial(webURL(s.URL), h)
	require.Error(t, err, "an Origin from another host")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
}

// TestServeCapnWebCountsConnections: a Cap'n Web WebSocket (or HTTP
// batch) counts against the per-IP connection limit like an /rpc
// connection: one limit for both doors (PerIPLoopback: loopback is
// exempt otherwise).
func TestServeCapnWebCountsConnections(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.Peers.MaxConnsPerIP, c.Peers.PerIPLoopback = 1, true
	}})
	ws, _, err := websocket.DefaultDialer.Dial(webURL(s.URL), nil)
	require.NoError(t, err)
	defer ws.Close()

	_, resp, err := websocket.DefaultDialer.Dial(s.URL, nil)
	require.Error(t, err, "the Cap'n Web connection holds the address's one slot")
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	_, resp, err = websocket.DefaultDialer.Dial(webURL(s.URL), nil)
	require.Error(t, err)
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
	batch := "http" + strings.TrimPrefix(webURL(s.URL), "ws")
	resp, err = http.Post(batch, "text/plain", strings.NewReader(`["push",["pipeline",0,["ping"],[]]]`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode, "an HTTP batch counts too")

	ws.Close()
	require.Eventually(t, func() bool {
		c, _, err := websocket.DefaultDialer.Dial(s.URL, nil)
		if err == nil {
			c.Close()
		}
		return err == nil
	}, 10*time.Second, 20*time.Millisecond, "the slot is given back when the Cap'n Web session ends")
}

// TestServeHostRefusalQuotesNothing: the 421 answer to a Host this vat
// does not serve quotes no part of it, and the log of a refused Origin
// names none of it. Before, the 421 quoted the first 64 characters, which
// for a token pasted where the server's name belongs is most of its
// secret, and /rpc logged a refused Origin whole.
func TestServeHostRefusalQuotesNothing(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	token := createAndAppend(ctx, t, s)
	secret := token[len(sturdyref.Prefix)+sturdyref.IDLen+1:]
	port := s.HTTP[strings.LastIndex(s.HTTP, ":")+1:]
	for _, host := range []string{token, token + ":" + port} {
		req, err := http.NewRequest(http.MethodGet, s.HTTP+"/healthz", nil)
		require.NoError(t, err)
		req.Host = host
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, http.StatusMisdirectedRequest, resp.StatusCode)
		assert.Contains(t, string(body), "--allowed-hosts", "the answer still says what to do")
		assertQuotesNone(t, string(body), secret)
	}
	for _, u := range []string{s.URL, webURL(s.URL)} {
		assert.Equal(t, http.StatusForbidden, originStatus(t, u, "http://"+token), "an Origin of another host")
	}
	require.Contains(t, s.Log.String(), "origin refused", "the refusal is logged (before the 403 is sent)")
	assertQuotesNone(t, s.Log.String(), secret)
}

// assertQuotesNone fails when text holds any 6 characters in a row of
// secret.
func assertQuotesNone(t *testing.T, text, secret string) {
	t.Helper()
	for i := 0; i+6 <= len(secret); i++ {
		if strings.Contains(text, secret[i:i+6]) {
			t.Errorf("the text quotes the token's secret from its character %d", i)
			return
		}
	}
}

// originStatus dials a WebSocket to u with the Origin origin and returns
// the answer's status (101 when it upgraded).
func originStatus(t *testing.T, u, origin string) int {
	t.Helper()
	ws, resp, err := websocket.DefaultDialer.Dial(u, http.Header{"Origin": {origin}})
	if err == nil {
		ws.Close()
		return http.StatusSwitchingProtocols
	}
	require.NotNil(t, resp, "dial %s: %v", u, err)
	return resp.StatusCode
}
