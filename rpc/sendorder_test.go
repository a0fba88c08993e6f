package rpc_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/rpc"
)

// gatedReader is a WebSocket server that reads nothing until gate is
// closed, then reads every message's Abort reason into got.
func gatedReader(t *testing.T, gate <-chan struct{}, got chan<- string) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		<-gate
		for {
			_, b, err := ws.ReadMessage()
			if err != nil {
				close(got)
				return
			}
			m, err := capnp.Unmarshal(b)
			if err != nil {
				close(got)
				return
			}
			root, _ := rpccp.ReadRootMessage(m)
			exc, _ := root.Abort()
			reason, _ := exc.Reason()
			got <- reason[:strings.IndexByte(reason, '|')]
		}
	}))
	t.Cleanup(srv.Close)
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// TestEncodeKeepsOrderAcrossInlineAndQueuedWrites: frames written from
// the caller's goroutine (nothing queued, room in the socket) and frames
// handed to the writer goroutine (socket full) interleave as the peer
// stops and resumes reading. Invariant: the peer receives every one of
// 600 messages of mixed sizes exactly once, in the order Encode took
// them; run under -race it also checks the hand-over between the two
// writers.
func TestEncodeKeepsOrderAcrossInlineAndQueuedWrites(t *testing.T) {
	gate, got := make(chan struct{}), make(chan string, 1024)
	ws, wc := dialWriterConn(t, gatedReader(t, gate, got))
	c := rpc.NewCodec(ws, rpc.CodecOptions{PingInterval: -1, PongTimeout: -1, ConnMemory: 256 << 20})
	t.Cleanup(func() { _ = wc.Close(); _ = c.Close() })
	const n = 600
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range n {
			size := 64
			if i%7 == 0 {
				size = 48 << 10 // big ones fill the socket: the next frames queue
			}
			if i == n/3 {
				close(gate) // the peer starts reading mid-stream
			}
			m := abortMessage(t, size)
			root, _ := rpccp.ReadRootMessage(m)
			exc, _ := root.Abort()
			if err := exc.SetReason(fmt.Sprintf("%d|%s", i, strings.Repeat("x", size))); err != nil {
				t.Errorf("SetReason: %v", err)
				return
			}
			if err := c.Encode(m); err != nil {
				t.Errorf("Encode %d: %v", i, err)
				return
			}
		}
	}()
	for i := range n {
		var s string
		select {
		case s = <-got:
		case <-time.After(safety):
			t.Fatalf("message %d never arrived", i)
		}
		require.Equal(t, fmt.Sprint(i), s, "message %d arrived out of order", i)
	}
	waitDone(t, done, "600 Encodes")
}
