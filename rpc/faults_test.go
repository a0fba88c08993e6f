package rpc_test

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/rpc"
)

// stallProxy forwards TCP connections to a target. After stall it stops
// reading from its clients (their writes then block once the socket
// buffers are full) while still forwarding the server's bytes.
type stallProxy struct {
	ln      net.Listener
	target  string
	stalled chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   []net.Conn
}

func newStallProxy(tb testing.TB, target string) *stallProxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &stallProxy{ln: ln, target: target, stalled: make(chan struct{})}
	p.wg.Go(p.accept)
	tb.Cleanup(p.close)
	return p
}

func (p *stallProxy) stall() { p.once.Do(func() { close(p.stalled) }) }

func (p *stallProxy) accept() {
	for {
		client, err := p.ln.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			client.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, client, server)
		p.mu.Unlock()
		p.wg.Go(func() { _, _ = io.Copy(client, server) })
		p.wg.Go(func() { p.forward(server, client) })
	}
}

// forward copies client to server until stalled.
func (p *stallProxy) forward(server, client net.Conn) {
	buf := make([]byte, 4096)
	for {
		select {
		case <-p.stalled:
			return
		default:
		}
		n, err := client.Read(buf)
		if err != nil {
			return
		}
		if _, err := server.Write(buf[:n]); err != nil {
			return
		}
	}
}

func (p *stallProxy) close() {
	p.stall()
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// TestWriteTimeout: a server that stops reading cannot block the client
// forever; once the socket buffers are full, the write deadline ends the
// connection.
func TestWriteTimeout(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{PingInterval: -1, PongTimeout: -1})
	proxy := newStallProxy(t, strings.TrimPrefix(srv.URL, "http://"))
	conn := mustDial(t, "ws://"+proxy.ln.Addr().String()+"/rpc", &rpc.DialOptions{
		PingInterval: -1, PongTimeout: -1, WriteTimeout: 50 * time.Millisecond,
	})
	boot := mustBootstrap(t, conn)
	proxy.stall()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 64 { // 64 MiB: more than the loopback socket buffers hold
		_, release := boot.SendCall(ctx, capnp.Send{
			Method:    addOne,
			ArgsSize:  capnp.ObjectSize{DataSize: 8, PointerCount: 1},
			PlaceArgs: func(s capnp.Struct) error { return setBlob(s, 1<<20) },
		})
		defer release()
	}
	waitDone(t, conn.Done(), "the write deadline to end the connection")
	if err := conn.Err(); err == nil || !strings.Contains(err.Error(), "timeout") {
		t.Errorf("Err() = %v, want a write timeout", err)
	}
	t.Logf("Err() = %v", conn.Err())
}
