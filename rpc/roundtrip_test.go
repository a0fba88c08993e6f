package rpc_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	capnp "capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/rpc"
)

func TestRoundTripSequential(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	boot := mustBootstrap(t, mustDial(t, srv.WSURL, nil))
	for i := range uint64(200) {
		mustAdd(t, boot, i)
	}
}

func TestRoundTripConcurrent(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	boot := mustBootstrap(t, mustDial(t, srv.WSURL, nil))
	var wg sync.WaitGroup
	errs := make(chan error, 20*50)
	for g := range uint64(20) {
		wg.Go(func() {
			for i := range uint64(50) {
				x := g*1000 + i
				if got, err := callAdd(context.Background(), boot, x); err != nil || got != x+1 {
					errs <- errors.Join(err, errors.New("wrong answer"))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent addOne: %v", err)
	}
}

// TestFirstCallAfterBootstrap guards the go-capnp trait of docs/design.md §10: the
// first call after Bootstrap must not fail with "call on null client".
func TestFirstCallAfterBootstrap(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	for i := range uint64(100) {
		conn, err := rpc.Dial(context.Background(), srv.WSURL, nil)
		if err != nil {
			t.Fatalf("Dial %d: %v", i, err)
		}
		boot := conn.Bootstrap(context.Background())
		mustAdd(t, boot, i)
		boot.Release()
		if err := conn.Close(); err != nil {
			t.Fatalf("Close %d: %v", i, err)
		}
		if err := conn.Err(); err != nil {
			t.Fatalf("Err after own Close = %v, want nil", err)
		}
	}
}

func TestManyClients(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	var wg sync.WaitGroup
	for i := range uint64(10) {
		boot := mustBootstrap(t, mustDial(t, srv.WSURL, nil))
		wg.Go(func() {
			for j := range uint64(20) {
				if _, err := callAdd(context.Background(), boot, i*100+j); err != nil {
					t.Errorf("client %d call %d: %v", i, j, err)
				}
			}
		})
	}
	wg.Wait()
	if got, want := srv.Handler.Conns(), 10; got != want {
		t.Errorf("Conns() = %d, want %d", got, want)
	}
}

func TestNoBootstrap(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{Bootstrap: func(rpc.Peer) capnp.Client { return capnp.Client{} }})
	conn := mustDial(t, srv.WSURL, nil)
	boot, err := conn.BootstrapResolved(context.Background())
	if err == nil {
		boot.Release()
		t.Fatal("BootstrapResolved succeeded on a server without bootstrap capability")
	}
	if _, err := callAdd(context.Background(), conn.Bootstrap(context.Background()), 1); err == nil {
		t.Error("call on the failed bootstrap succeeded")
	}
}

// TestCloseDuringCalls closes connections, from both ends, while calls are
// in flight: calls fail cleanly, nothing races or hangs.
func TestCloseDuringCalls(t *testing.T) {
	checkGoroutines(t)
	srv := mustServe(t, rpc.HandlerOptions{})
	clientSide := mustDial(t, srv.WSURL, nil)
	serverSide := mustDial(t, srv.WSURL, nil)
	var wg sync.WaitGroup
	started := make(chan struct{}, 8)
	for _, conn := range []*rpc.Conn{clientSide, serverSide} {
		boot := mustBootstrap(t, conn)
		for range 4 {
			wg.Go(func() {
				started <- struct{}{}
				for i := uint64(0); ; i++ {
					if _, err := callAdd(context.Background(), boot, i); err != nil {
						return // the connection is gone
					}
				}
			})
		}
	}
	for range 8 {
		<-started
	}
	closed := make(chan error, 1)
	go func() { closed <- srv.Handler.Close(context.Background()) }()
	if err := clientSide.Close(); err != nil {
		t.Errorf("client Close: %v", err)
	}
	if err := <-closed; err != nil {
		t.Errorf("Handler.Close: %v", err)
	}
	waitDone(t, serverSide.Done(), "the server-closed connection to end")
	wg.Wait()
}
