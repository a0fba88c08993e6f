package rpc_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc"
)

// logBuffer is a goroutine-safe log sink.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestLogging: opens and closes are logged with the remote address and the
// reason; orderly sessions log nothing above Info; frame contents never
// appear.
func TestLogging(t *testing.T) {
	checkGoroutines(t)
	var logs logBuffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv := mustServe(t, rpc.HandlerOptions{Logger: log})
	conn := mustDial(t, srv.WSURL, &rpc.DialOptions{Logger: log})
	boot := conn.Bootstrap(context.Background())
	mustAdd(t, boot, 1)
	boot.Release()
	ws := dialRaw(t, srv.WSURL, nil)
	const secret = "SECRET-PAYLOAD-0123456789"
	if err := ws.WriteMessage(websocket.BinaryMessage, []byte(secret)); err != nil {
		t.Fatal(err)
	}
	readClose(t, ws)
	if err := conn.Close(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), safety)
	defer cancel()
	if err := srv.Handler.Close(ctx); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, want := range []string{"connection opened", "connection closed", "remote=127.0.0.1:", "malformed Cap'n Proto message (websocket close 1007)"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"level=WARN", "level=ERROR", secret} {
		if strings.Contains(out, bad) {
			t.Errorf("log contains %q:\n%s", bad, out)
		}
	}
}
