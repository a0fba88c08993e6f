package rpc_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc"
)

const (
	tinyPing = 5 * time.Millisecond
	tinyPong = 50 * time.Millisecond
)

// TestKeepaliveDropsSilentPeer: a peer that reads but never answers pings
// is disconnected with 1001 and the keepalive reason.
func TestKeepaliveDropsSilentPeer(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{PingInterval: tinyPing, PongTimeout: tinyPong})
	ws := dialRaw(t, srv.WSURL, nil)
	pinged := make(chan struct{}, 1)
	ws.SetPingHandler(func(string) error { // swallow pings: no pong
		select {
		case pinged <- struct{}{}:
		default:
		}
		return nil
	})
	ce := readClose(t, ws)
	if ce.Code != websocket.CloseGoingAway || !strings.Contains(ce.Text, "keepalive timeout") {
		t.Errorf("close = %d %q, want 1001 keepalive timeout", ce.Code, ce.Text)
	}
	select {
	case <-pinged:
	default:
		t.Error("the server never pinged")
	}
}

// TestKeepaliveKeepsAnsweringPeer: pongs alone keep a connection open well
// past PongTimeout.
func TestKeepaliveKeepsAnsweringPeer(t *testing.T) {
	checkGoroutines(t)
	const interval, timeout = 10 * time.Millisecond, 150 * time.Millisecond
	srv := mustServe(t, rpc.HandlerOptions{PingInterval: interval, PongTimeout: timeout})
	ws := dialRaw(t, srv.WSURL, nil)
	const want = 45 // 45 pings span at least 45*interval = 3*timeout
	pings := make(chan struct{}, want)
	ws.SetPingHandler(func(data string) error {
		select {
		case pings <- struct{}{}:
		default: // counted enough
		}
		return ws.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(time.Second))
	})
	frames := readFrames(ws)
	for range want {
		select {
		case <-pings:
		case err := <-frames:
			t.Fatalf("connection ended after %d pings: %v", len(pings), err)
		case <-time.After(safety):
			t.Fatal("timed out waiting for pings")
		}
	}
	if err := ws.WriteMessage(websocket.BinaryMessage, bootstrapMessage(t, 0)); err != nil {
		t.Fatalf("write after pings: %v", err)
	}
	if err := <-frames; err != nil {
		t.Fatalf("no answer after pings: %v", err)
	}
}

// readFrames reads ws in a goroutine, sending nil per data message and the
// final error, after which it stops.
func readFrames(ws *websocket.Conn) <-chan error {
	out := make(chan error, 16)
	go func() {
		for {
			_, _, err := ws.ReadMessage()
			out <- err
			if err != nil {
				return
			}
		}
	}()
	return out
}

// TestClientKeepalive: a Dial client gives up on a server that never
// answers its pings and says why.
func TestClientKeepalive(t *testing.T) {
	checkGoroutines(t)
	release := make(chan struct{})
	mute := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		<-release // never read: pings stay unanswered
	}))
	t.Cleanup(mute.Close)
	t.Cleanup(func() { close(release) })
	conn := mustDial(t, "ws"+strings.TrimPrefix(mute.URL, "http"), &rpc.DialOptions{PingInterval: tinyPing, PongTimeout: tinyPong})
	waitDone(t, conn.Done(), "the client to give up")
	var ce *rpc.CloseError
	if err := conn.Err(); !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("Err() = %v, want our 1001 keepalive close", err)
	}
	t.Logf("Err() = %v", conn.Err())
}
