package engine_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestVatOverEngine: a real vat (bbolt vault, /rpc handler) and the Go
// client, both on the engine: create a share, append, and subscribe (the
// vat calls the client's subscriber capability, with flow control) until
// every entry has arrived, in order. (The engine against go-capnp's rpc,
// in both roles, is the conformance suite's: pipe_test.go.)
func TestVatOverEngine(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	sh := srv.MustRestore(t, srv.MustCreate(t, "engine"))
	ctx := testCtx(t)
	appendN(t, ctx, sh, "a", 20)
	rd, err := sh.Reader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := &entries{more: make(chan struct{}, 1)}
	sub, err := rd.Subscribe(ctx, 0, got.add)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	appendN(t, ctx, sh, "b", 10)
	got.waitFor(t, 30)
}

// appendN appends n one-op batches with op ids prefix-i.
func appendN(t *testing.T, ctx context.Context, sh *client.Share, prefix string, n int) {
	t.Helper()
	app, err := sh.Appender(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Release()
	for i := range n {
		b := &sharevat.Batch{BatchID: fmt.Sprintf("%s-b%d", prefix, i), Epoch: sh.Access.Epoch,
			Ops: []sharevat.Op{{OpID: fmt.Sprintf("%s-%d", prefix, i), Kind: "event", Body: []byte(`{}`)}}}
		if ack, err := app.Append(ctx, b); err != nil || ack.Applied != 1 {
			t.Fatalf("append %s-%d: %+v, %v", prefix, i, ack, err)
		}
	}
}

// entries collects what a subscription delivers and checks the order.
type entries struct {
	mu   sync.Mutex
	last sharevat.Cursor
	bad  []string
	more chan struct{}
}

func (e *entries) add(es []sharevat.Entry) error {
	e.mu.Lock()
	for _, x := range es {
		if x.Cursor != e.last+1 {
			e.bad = append(e.bad, fmt.Sprintf("cursor %d after %d", x.Cursor, e.last))
		}
		e.last = x.Cursor
	}
	e.mu.Unlock()
	select {
	case e.more <- struct{}{}:
	default:
	}
	return nil
}

// waitFor waits until cursor n has been delivered, in order.
func (e *entries) waitFor(t *testing.T, n sharevat.Cursor) {
	t.Helper()
	timeout := time.After(safety)
	for {
		e.mu.Lock()
		last, bad := e.last, e.bad
		e.mu.Unlock()
		if len(bad) > 0 {
			t.Fatalf("out of order: %v", bad)
		}
		if last >= n {
			return
		}
		select {
		case <-e.more:
		case <-timeout:
			t.Fatalf("subscription delivered up to %d, want %d", last, n)
		}
	}
}
