package main_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// webURL is the /capnweb URL of the server whose /rpc URL is rpcURL.
func webURL(rpcURL string) string { return strings.TrimSuffix(rpcURL, "/rpc") + "/capnweb" }

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
