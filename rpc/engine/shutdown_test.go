package engine_test

// Shutdown leaves nothing running: Close while calls are in flight in
// both directions returns, Done closes (once, however often Close is
// called) and every goroutine the connections started ends.

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"

	"github.com/sharevat/sharevat/rpc/engine"
)

// hang is a method that runs until its call is canceled.
var hang = capnp.Method{InterfaceID: 0xd8a061b42c3e9f03, MethodID: 0, InterfaceName: "Hanger", MethodName: "hang"}

func newHanger(started chan<- struct{}) capnp.Client {
	return capnp.NewClient(server.New([]server.Method{{Method: hang, Impl: func(ctx context.Context, _ *server.Call) error {
		started <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}}}, nil, nil))
}

// TestCloseLeavesNoGoroutines: rounds of two engines talking (pipelined
// calls, callbacks, a call hanging on the server when the client closes)
// end with as many goroutines as before them.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	const rounds = 10
	runtime.GC()
	before := runtime.NumGoroutine()
	for range rounds {
		closeMidCall(t)
	}
	deadline := time.Now().Add(6 * safety) // a loaded machine may be slow to run exits
	after := runtime.NumGoroutine()
	for after > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond) // polling for exits, not timing them
		after = runtime.NumGoroutine()
	}
	if after > before {
		buf := make([]byte, 1<<20)
		stacks := string(buf[:runtime.Stack(buf, true)])
		t.Fatalf("%d goroutines before %d rounds, %d after:\n%s", before, rounds, after, stacks)
	}
}

// closeMidCall runs one round: the client closes while its call hangs.
func closeMidCall(t *testing.T) {
	ctx := testCtx(t)
	started := make(chan struct{}, 1)
	a, b := newPipe()
	srv := engine.NewConn(a, &engine.Options{BootstrapClient: newHanger(started)})
	cli := engine.NewConn(b, &engine.Options{BootstrapClient: newMaker()})
	boot := cli.Bootstrap(ctx)
	ans, release := boot.SendCall(ctx, capnp.Send{Method: hang})
	<-started
	if err := cli.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := ans.Struct(); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Errorf("call outstanding at Close answered %v, want a disconnection", err)
	}
	release()
	boot.Release()
	waitDone(t, srv.Done())
	_ = srv.Close()
	_ = cli.Close() // a second Close returns at once; Done stays closed
	waitDone(t, cli.Done())
}
