package main_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"sharevat/capnweb"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webURL is the /capnweb URL of the server whose /rpc URL is rpcURL.
func webURL(rpcURL string) string { return strings.TrimSuffix(rpcURL, "/rpc") + "/capnweb" }

// TestServeCapnWebDoor: the real binary serves /capnweb beside /rpc, on
// the same vat: a share created over /rpc is restored over Cap'n Web
// with its owner token, a bad token is refused in the vat's words, and an
// Origin from another host is refused as at /rpc.
func TestServeCapnWebDoor(t *testing.T) {
	s := startServer(t, t.TempDir())
	token := createShare(t, s)

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := capnweb.Dial(ctx, webURL(s.URL), nil, nil)
	require.NoError(t, err)
	defer c.Close()
	res, err := c.Main().Call(ctx, "restore", token)
	require.NoError(t, err)
	info, _ := res.(*capnweb.Object).Get("info")
	title, _ := info.(*capnweb.Object).Get("meta")
	got, _ := title.(*capnweb.Object).Get("title")
	assert.Equal(t, "crash", got, "createShare's title")

	_, err = c.Main().Call(ctx, "restore", token[:len(token)-1]+"A")
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
// batch) counts against --max-conns-per-ip like an /rpc connection: one
// limit for both doors (--per-ip-loopback: loopback is exempt otherwise).
func TestServeCapnWebCountsConnections(t *testing.T) {
	s := startServer(t, t.TempDir(), "--max-conns-per-ip", "1", "--per-ip-loopback")
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

// TestServeStopsWithCapnWebSession: SIGTERM with a Cap'n Web session
// open ends it (close code 1001) and the process exits cleanly.
func TestServeStopsWithCapnWebSession(t *testing.T) {
	s := startServer(t, t.TempDir())
	ws, _, err := websocket.DefaultDialer.Dial(webURL(s.URL), nil)
	require.NoError(t, err)
	defer ws.Close()
	s.Stop(t)
	assert.NoError(t, s.Err(), "a clean exit")
	require.NoError(t, ws.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, _, err = ws.ReadMessage()
	assert.True(t, websocket.IsCloseError(err, websocket.CloseGoingAway), "got %v", err)
}
