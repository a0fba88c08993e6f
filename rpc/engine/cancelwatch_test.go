package engine_test

// A call's cancellation watch (context.AfterFunc on the caller's context)
// is disarmed however early the Return comes, so a long-lived context
// used for many calls does not accumulate one watch per call.

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/rpc/transport"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat/rpc/engine"
)

// watchCountingCtx is a never-ending context that counts the AfterFunc
// watches registered on it and not yet stopped (context.AfterFunc uses
// a context's own AfterFunc method when it has one).
type watchCountingCtx struct {
	done  chan struct{}
	armed atomic.Int64
}

func (c *watchCountingCtx) Deadline() (time.Time, bool) { return time.Time{}, false }
func (c *watchCountingCtx) Done() <-chan struct{}       { return c.done }
func (c *watchCountingCtx) Err() error                  { return nil }
func (c *watchCountingCtx) Value(any) any               { return nil }

// AfterFunc registers f (never run: the context never ends).
func (c *watchCountingCtx) AfterFunc(func()) func() bool {
	c.armed.Add(1)
	var stopped atomic.Bool
	return func() bool {
		if stopped.CompareAndSwap(false, true) {
			c.armed.Add(-1)
			return true
		}
		return false
	}
}

// returnFirstCodec makes the worst schedule for the caller: a Call or
// Bootstrap it writes returns from Encode only after the reader has
// dispatched the peer's Return to it (the reader has come back to
// Decode after decoding one more Return than before the write).
type returnFirstCodec struct {
	transport.Codec
	mu         sync.Mutex
	cond       *sync.Cond
	decoded    int // Returns handed to the reader
	dispatched int // ... and dispatched (the reader called Decode again)
	lastReturn bool
}

func newReturnFirstCodec(c transport.Codec) *returnFirstCodec {
	r := &returnFirstCodec{Codec: c}
	r.cond = sync.NewCond(&r.mu)
	return r
}

func (r *returnFirstCodec) Decode() (*capnp.Message, error) {
	r.mu.Lock()
	if r.lastReturn {
		r.lastReturn = false
		r.dispatched++
		r.cond.Broadcast()
	}
	r.mu.Unlock()
	msg, err := r.Codec.Decode()
	if err != nil {
		r.mu.Lock()
		r.dispatched = 1 << 30 // nothing more comes: release any writer
		r.cond.Broadcast()
		r.mu.Unlock()
		return nil, err
	}
	if m, err := rpccp.ReadRootMessage(msg); err == nil && m.Which() == rpccp.Message_Which_return {
		r.mu.Lock()
		r.decoded++
		r.lastReturn = true
		r.mu.Unlock()
	}
	return msg, nil
}

func (r *returnFirstCodec) Encode(msg *capnp.Message) error {
	m, err := rpccp.ReadRootMessage(msg)
	hold := err == nil && (m.Which() == rpccp.Message_Which_call || m.Which() == rpccp.Message_Which_bootstrap)
	r.mu.Lock()
	want := r.decoded + 1
	r.mu.Unlock()
	if err := r.Codec.Encode(msg); err != nil || !hold {
		return err
	}
	r.mu.Lock()
	for r.dispatched < want {
		r.cond.Wait()
	}
	r.mu.Unlock()
	return nil
}

// TestCancelWatchDisarmedWhenReturnComesFirst: n calls (and the
// Bootstrap) on one long-lived context, each answered before the caller
// got back from writing it, leave no watch armed on the context.
func TestCancelWatchDisarmedWhenReturnComesFirst(t *testing.T) {
	const n = 50
	a, b := newPipe()
	srv := engine.NewConn(a, &engine.Options{BootstrapClient: newAdder()})
	cli := engine.NewConn(newReturnFirstCodec(b), nil)
	defer func() {
		_ = cli.Close()
		waitDone(t, srv.Done())
	}()
	ctx := &watchCountingCtx{done: make(chan struct{})}
	boot := cli.Bootstrap(ctx)
	defer boot.Release()
	for i := range uint64(n) {
		if got, err := callAdd(ctx, boot, i); err != nil || got != i+1 {
			t.Fatalf("call %d: %d, %v", i, got, err)
		}
	}
	if armed := ctx.armed.Load(); armed != 0 {
		t.Fatalf("after the Bootstrap and %d calls answered, %d cancellation watches are still armed on the caller's context", n, armed)
	}
}

var _ context.Context = (*watchCountingCtx)(nil)

// TestCancelWatchDisarmedAtClose: a call outstanding when the connection
// closes fails, and its watch on the caller's context goes with it.
func TestCancelWatchDisarmedAtClose(t *testing.T) {
	started := make(chan struct{}, 1)
	a, b := newPipe()
	srv := engine.NewConn(a, &engine.Options{BootstrapClient: newHanger(started)})
	cli := engine.NewConn(b, nil)
	ctx := &watchCountingCtx{done: make(chan struct{})}
	boot := cli.Bootstrap(ctx)
	defer boot.Release()
	ans, release := boot.SendCall(ctx, capnp.Send{Method: hang})
	defer release()
	<-started
	_ = cli.Close()
	waitDone(t, srv.Done())
	if _, err := ans.Struct(); err == nil {
		t.Fatal("a call outstanding at Close succeeded")
	}
	if armed := ctx.armed.Load(); armed != 0 {
		t.Fatalf("after Close, %d cancellation watches are still armed on the caller's context", armed)
	}
}
