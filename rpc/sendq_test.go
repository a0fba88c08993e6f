package rpc_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
	"github.com/gorilla/websocket"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/rpc"
)

// goroutineID is the id of the calling goroutine (from its stack's
// first line, "goroutine N [running]:").
func goroutineID() string {
	var buf [64]byte
	n := runtime.Stack(buf[:], false)
	id, _, _ := strings.Cut(strings.TrimPrefix(string(buf[:n]), "goroutine "), " ")
	return id
}

// writerConn is a TCP connection that reports which goroutine makes each
// write, once armed.
type writerConn struct {
	*net.TCPConn
	mu      sync.Mutex
	armed   bool
	writers chan string
}

func (c *writerConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	armed := c.armed
	c.mu.Unlock()
	if armed {
		c.writers <- goroutineID()
	}
	return c.TCPConn.Write(b)
}

func (c *writerConn) arm() {
	c.mu.Lock()
	c.armed = true
	c.mu.Unlock()
}

// readingServer accepts WebSocket connections and reads them (read
// says whether it reads at all).
func readingServer(t *testing.T, read bool) string {
	t.Helper()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		if !read {
			<-release
			return
		}
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	return "ws" + strings.TrimPrefix(srv.URL, "http")
}

// dialWriterConn dials url with the connection wrapped in a writerConn.
func dialWriterConn(t *testing.T, url string) (*websocket.Conn, *writerConn) {
	t.Helper()
	var wc *writerConn
	d := websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		wc = &writerConn{TCPConn: c.(*net.TCPConn), writers: make(chan string, 1024)}
		return wc, nil
	}}
	ws, resp, err := d.Dial(url, nil)
	require.NoError(t, err)
	resp.Body.Close()
	return ws, wc
}

// abortMessage is an Abort message whose reason is n bytes long.
func abortMessage(t *testing.T, n int) *capnp.Message {
	t.Helper()
	msg, seg := capnp.NewSingleSegmentMessage(nil)
	m, err := rpccp.NewRootMessage(seg)
	require.NoError(t, err)
	exc, err := m.NewAbort()
	require.NoError(t, err)
	require.NoError(t, exc.SetReason(string(bytes.Repeat([]byte{'x'}, n))))
	return msg
}

// TestEncodeWritesFromTheCallingGoroutine: with nothing queued and room
// in the socket's send buffer, Encode writes the frame itself, without
// handing it to a writer goroutine (a hand-off and a goroutine start per
// message otherwise: a call, its return and its finish each paid them).
func TestEncodeWritesFromTheCallingGoroutine(t *testing.T) {
	ws, wc := dialWriterConn(t, readingServer(t, true))
	c := rpc.NewCodec(ws, rpc.CodecOptions{PingInterval: -1, PongTimeout: -1})
	defer c.Close()
	wc.arm()
	me := goroutineID()
	for i := range 3 {
		m, err := capnp.Unmarshal(bootstrapMessage(t, uint32(i)))
		require.NoError(t, err)
		require.NoError(t, c.Encode(m))
		require.Equal(t, me, <-wc.writers, "message %d: written by the goroutine that encoded it", i)
	}
}

// TestEncodeNeverWaitsOnAPeerThatDoesNotRead: once the socket's send
// buffer is full, Encode queues (the bytes counted in the budget) and
// returns at once instead of writing from the caller's goroutine, which
// would block go-capnp's sender and let its own unbounded queue grow.
func TestEncodeNeverWaitsOnAPeerThatDoesNotRead(t *testing.T) {
	ws, wc := dialWriterConn(t, readingServer(t, false))
	c := rpc.NewCodec(ws, rpc.CodecOptions{PingInterval: -1, PongTimeout: -1, ConnMemory: 256 << 20})
	t.Cleanup(func() { _ = wc.Close(); _ = c.Close() }) // the socket first: the writer is stuck on it
	m := abortMessage(t, 64<<10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 160 { // 10 MiB: more than loopback's socket buffers hold unread
			if err := c.Encode(m); err != nil {
				t.Errorf("Encode: %v", err)
				return
			}
		}
	}()
	waitDone(t, done, "160 Encodes to a peer that does not read")
}
