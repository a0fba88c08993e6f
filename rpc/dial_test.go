package rpc_test

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharevat/sharevat/rpc"
)

// prompt is how soon Dial must give up once its ctx is done: far below the
// handshake timeout, far above any scheduling delay.
const prompt = 5 * time.Second

// silentServer accepts TCP connections and never answers: the WebSocket
// handshake hangs after the request is sent.
type silentServer struct {
	ln       net.Listener
	accepted chan struct{} // one value per connection whose request arrived
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    []net.Conn
}

func newSilentServer(tb testing.TB) *silentServer {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	s := &silentServer{ln: ln, accepted: make(chan struct{}, 16)}
	s.wg.Go(s.accept)
	tb.Cleanup(s.close)
	return s
}

func (s *silentServer) URL() string { return "ws://" + s.ln.Addr().String() + "/rpc" }

func (s *silentServer) accept() {
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns = append(s.conns, conn)
		s.mu.Unlock()
		s.wg.Go(func() { s.awaitRequest(conn) })
	}
}

// awaitRequest signals once the client's upgrade request has begun to
// arrive, so the client is past its TCP dial and waits for the answer.
func (s *silentServer) awaitRequest(conn net.Conn) {
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		s.accepted <- struct{}{}
	}
}

func (s *silentServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// TestDialHonoursContext: against a server that accepts and never
// answers, Dial returns promptly once ctx is cancelled or its deadline
// passes, with ctx's error and the URL in the message.
func TestDialHonoursContext(t *testing.T) {
	checkGoroutines(t)
	tests := []struct {
		name    string
		timeout time.Duration // 0: cancel once the request has arrived
		want    error
	}{
		{"cancel", 0, context.Canceled},
		{"deadline", 50 * time.Millisecond, context.DeadlineExceeded},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newSilentServer(t)
			ctx, cancel := context.WithCancel(context.Background())
			if tt.timeout > 0 {
				ctx, cancel = context.WithTimeout(context.Background(), tt.timeout)
			}
			defer cancel()
			done := make(chan error, 1)
			go func() {
				conn, err := rpc.Dial(ctx, srv.URL(), nil)
				if err == nil {
					conn.Close()
				}
				done <- err
			}()
			waitDone(t, srv.accepted, "the upgrade request")
			if tt.timeout == 0 {
				cancel()
			}
			var err error
			select {
			case err = <-done:
			case <-time.After(prompt):
				t.Fatalf("Dial still blocked %s after ctx ended", prompt)
			}
			checkDialError(t, err, tt.want, srv.URL())
		})
	}
}

func checkDialError(t *testing.T, err, want error, url string) {
	t.Helper()
	var de *rpc.DialError
	if !errors.As(err, &de) || !errors.Is(err, want) {
		t.Fatalf("Dial = %v, want a *DialError wrapping %v", err, want)
	}
	if !strings.Contains(err.Error(), url) {
		t.Errorf("Dial error %q does not name %s", err, url)
	}
	t.Logf("Dial = %v", err)
}

// TestDialContextAfterHandshake: once Dial has returned, cancelling its
// ctx does not touch the connection.
func TestDialContextAfterHandshake(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := rpc.Dial(ctx, srv.WSURL, nil)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	cancel()
	boot := mustBootstrap(t, conn)
	for i := range uint64(10) {
		mustAdd(t, boot, i)
	}
	if err := conn.Err(); err != nil {
		t.Errorf("Err() = %v after ctx cancel, want an open connection", err)
	}
}
