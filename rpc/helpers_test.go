package rpc_test

import (
	"context"
	"encoding/binary"
	"errors"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
	"github.com/gorilla/websocket"

	"github.com/sharevat/sharevat/rpc"
)

// addOne is the one method of the test capability: it returns its uint64
// argument plus one.
var addOne = capnp.Method{
	InterfaceID:   0xd8a0_61b4_2c3e_9f01,
	MethodID:      0,
	InterfaceName: "rpc_test.Adder",
	MethodName:    "addOne",
}

// safety bounds a wait that should end much sooner; tests synchronise on
// channels, this only turns a hang into a failure.
const safety = 10 * time.Second

func newAdder() capnp.Client {
	return capnp.NewClient(server.New([]server.Method{{Method: addOne, Impl: addOneImpl}}, nil, nil))
}

func addOneImpl(_ context.Context, call *server.Call) error {
	res, err := call.AllocResults(capnp.ObjectSize{DataSize: 8})
	if err != nil {
		return err
	}
	res.SetUint64(0, call.Args().Uint64(0)+1)
	return nil
}

// callAdd calls addOne(x) on c.
func callAdd(ctx context.Context, c capnp.Client, x uint64) (uint64, error) {
	ans, release := c.SendCall(ctx, capnp.Send{
		Method:   addOne,
		ArgsSize: capnp.ObjectSize{DataSize: 8},
		PlaceArgs: func(s capnp.Struct) error {
			s.SetUint64(0, x)
			return nil
		},
	})
	defer release()
	res, err := ans.Struct()
	if err != nil {
		return 0, err
	}
	return res.Uint64(0), nil
}

// testServer is a Handler mounted at /rpc on a loopback httptest server.
type testServer struct {
	*httptest.Server
	Handler *rpc.Handler
	WSURL   string // ws://127.0.0.1:port/rpc
}

// mustServe starts a server whose bootstrap capability is an adder unless
// opts says otherwise. Cleanup closes the handler, then the server.
func mustServe(tb testing.TB, opts rpc.HandlerOptions) *testServer {
	tb.Helper()
	if opts.Bootstrap == nil {
		opts.Bootstrap = func(rpc.Peer) capnp.Client { return newAdder() }
	}
	h := rpc.NewHandler(opts)
	mux := http.NewServeMux()
	mux.Handle("/rpc", h)
	srv := httptest.NewServer(mux)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), safety)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			tb.Errorf("Handler.Close: %v", err)
		}
		srv.Close()
	})
	return &testServer{Server: srv, Handler: h, WSURL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/rpc"}
}

// mustDial dials url and closes the connection at cleanup.
func mustDial(tb testing.TB, url string, opts *rpc.DialOptions) *rpc.Conn {
	tb.Helper()
	conn, err := rpc.Dial(context.Background(), url, opts)
	if err != nil {
		tb.Fatalf("Dial: %v", err)
	}
	tb.Cleanup(func() { _ = conn.Close() })
	return conn
}

// mustBootstrap returns the resolved bootstrap capability of conn.
func mustBootstrap(tb testing.TB, conn *rpc.Conn) capnp.Client {
	tb.Helper()
	boot, err := conn.BootstrapResolved(context.Background())
	if err != nil {
		tb.Fatalf("BootstrapResolved: %v", err)
	}
	tb.Cleanup(boot.Release)
	return boot
}

// mustAdd calls addOne(x) and checks the answer.
func mustAdd(tb testing.TB, c capnp.Client, x uint64) {
	tb.Helper()
	got, err := callAdd(context.Background(), c, x)
	if err != nil {
		tb.Fatalf("addOne(%d): %v", x, err)
	}
	if got != x+1 {
		tb.Fatalf("addOne(%d) = %d, want %d", x, got, x+1)
	}
}

// dialRaw opens a plain gorilla WebSocket, closed at cleanup.
func dialRaw(tb testing.TB, url string, header http.Header) *websocket.Conn {
	tb.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, header)
	if err != nil {
		tb.Fatalf("raw dial: %v", err)
	}
	tb.Cleanup(func() { _ = ws.Close() })
	return ws
}

// readClose reads until the peer's close frame and returns it.
func readClose(tb testing.TB, ws *websocket.Conn) *websocket.CloseError {
	tb.Helper()
	_ = ws.SetReadDeadline(time.Now().Add(safety))
	for {
		_, _, err := ws.ReadMessage()
		if err == nil {
			continue
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) {
			tb.Fatalf("read: got %v, want a close frame", err)
		}
		return ce
	}
}

// bootstrapMessage is a serialized rpc.capnp Bootstrap message.
func bootstrapMessage(tb testing.TB, questionID uint32) []byte {
	tb.Helper()
	msg, seg := capnp.NewSingleSegmentMessage(nil)
	m, err := rpccp.NewRootMessage(seg)
	if err != nil {
		tb.Fatal(err)
	}
	boot, err := m.NewBootstrap()
	if err != nil {
		tb.Fatal(err)
	}
	boot.SetQuestionId(questionID)
	data, err := msg.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// framedLen is the length the segment table of data announces.
func framedLen(data []byte) int {
	n := int(binary.LittleEndian.Uint32(data)) + 1
	total := (4 + 4*n + 7) &^ 7
	for i := range n {
		total += 8 * int(binary.LittleEndian.Uint32(data[4+4*i:]))
	}
	return total
}

// checkGoroutines fails the test if, after its cleanups, more goroutines
// run than at its start. Register it first so it runs last; go-capnp keeps
// a goroutine per finished call for ~250 ms, hence the polling.
func checkGoroutines(tb testing.TB) {
	tb.Helper()
	base := runtime.NumGoroutine()
	tb.Cleanup(func() {
		deadline := time.Now().Add(safety)
		for runtime.NumGoroutine() > base {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<20)
				buf = buf[:runtime.Stack(buf, true)]
				tb.Errorf("goroutines: %d at start, %d after cleanup\n%s", base, runtime.NumGoroutine(), buf)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

// waitDone waits for ch or fails after the safety bound.
func waitDone(tb testing.TB, ch <-chan struct{}, what string) {
	tb.Helper()
	select {
	case <-ch:
	case <-time.After(safety):
		tb.Fatalf("timed out waiting for %s", what)
	}
}

// waitFor polls cond until it holds or the safety bound passes; for state
// that no channel announces (such as Handler.Conns).
func waitFor(tb testing.TB, cond func() bool, what string) {
	tb.Helper()
	deadline := time.Now().Add(safety)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
