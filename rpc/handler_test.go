package rpc_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc"
)

func TestNotWebSocket(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	resp, err := http.Get(srv.URL + "/rpc")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusUpgradeRequired || !strings.Contains(string(body), "WebSocket") {
		t.Errorf("plain GET: %d %q, want 426 and a word about WebSocket", resp.StatusCode, body)
	}
	srv.Client().CloseIdleConnections()
}

func TestOrigin(t *testing.T) {
	checkGoroutines(t)
	tests := []struct {
		name    string
		allowed []string
		origin  string // "self": the server's own origin
		want    int    // 0: upgrade succeeds
	}{
		{"no origin header", []string{"https://app.example"}, "", 0},
		{"allowed origin", []string{"https://app.example"}, "https://app.example", 0},
		{"allowed origin, other case", []string{"https://app.example"}, "https://APP.example", 0},
		{"disallowed origin", []string{"https://app.example"}, "https://evil.example", http.StatusForbidden},
		{"port differs", []string{"https://app.example"}, "https://app.example:8443", http.StatusForbidden},
		{"wildcard", []string{"*"}, "https://anything.example", 0},
		{"default: same host", nil, "self", 0},
		{"default: other host", nil, "https://evil.example", http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := mustServe(t, rpc.HandlerOptions{AllowedOrigins: tt.allowed})
			origin := tt.origin
			if origin == "self" {
				origin = srv.URL
			}
			header := http.Header{}
			if origin != "" {
				header.Set("Origin", origin)
			}
			conn, err := rpc.Dial(context.Background(), srv.WSURL, &rpc.DialOptions{Header: header})
			if tt.want == 0 {
				if err != nil {
					t.Fatalf("Dial with Origin %q: %v", origin, err)
				}
				defer conn.Close()
				mustAdd(t, mustBootstrap(t, conn), 1)
				return
			}
			var de *rpc.DialError
			if !errors.As(err, &de) || de.StatusCode != tt.want {
				t.Fatalf("Dial with Origin %q: %v, want HTTP %d", origin, err, tt.want)
			}
			if got := srv.Handler.Conns(); got != 0 {
				t.Errorf("Conns() = %d after refusal, want 0", got)
			}
		})
	}
}

func TestHandlerClose(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	var conns []*rpc.Conn
	for i := range uint64(3) {
		conn := mustDial(t, srv.WSURL, nil)
		mustAdd(t, mustBootstrap(t, conn), i)
		conns = append(conns, conn)
	}
	if got := srv.Handler.Conns(); got != 3 {
		t.Fatalf("Conns() = %d, want 3", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), safety)
	defer cancel()
	if err := srv.Handler.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := srv.Handler.Conns(); got != 0 {
		t.Errorf("Conns() = %d after Close, want 0", got)
	}
	for i, conn := range conns {
		waitDone(t, conn.Done(), "client to see the close")
		var ce *rpc.CloseError
		if err := conn.Err(); !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway || ce.Reason != "server shutting down" {
			t.Errorf("client %d: Err() = %v, want 1001 server shutting down", i, err)
		}
	}
	_, err := rpc.Dial(context.Background(), srv.WSURL, nil)
	var de *rpc.DialError
	if !errors.As(err, &de) || de.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("Dial after Close: %v, want HTTP 503", err)
	}
	t.Logf("dial after Close: %v", err)
}

func TestMaxConns(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{MaxConns: 2})
	first := mustDial(t, srv.WSURL, nil)
	mustDial(t, srv.WSURL, nil)
	_, err := rpc.Dial(context.Background(), srv.WSURL, nil)
	var de *rpc.DialError
	if !errors.As(err, &de) || de.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("third Dial: %v, want HTTP 503", err)
	}
	if !strings.Contains(err.Error(), "too many connections") {
		t.Errorf("third Dial error %q does not say why", err)
	}
	if err := first.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	waitFor(t, func() bool { return srv.Handler.Conns() == 1 }, "the server to drop the closed connection")
	mustAdd(t, mustBootstrap(t, mustDial(t, srv.WSURL, nil)), 1)
}

func TestDialErrors(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	tests := []struct {
		name, url, want string
	}{
		{"http scheme", srv.URL + "/rpc", "want ws or wss"},
		{"not found", srv.WSURL + "/nope", "HTTP 404"},
		{"password redacted", "ws://user:secret@" + strings.TrimPrefix(srv.URL, "http://") + "/nope", "user:xxxxx@"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := rpc.Dial(context.Background(), tt.url, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Dial(%s) = %v, want an error containing %q", tt.url, err, tt.want)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("error %q leaks the password", err)
			}
		})
	}
}
