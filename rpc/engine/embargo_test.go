package engine_test

import (
	"context"
	"sync"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"

	"github.com/sharevat/sharevat/rpc/engine"
)

// recorder is a local capability whose addOne records the order of its
// arguments.
type recorder struct {
	mu  sync.Mutex
	got []uint64
}

func (r *recorder) client() capnp.Client {
	return capnp.NewClient(server.New([]server.Method{{Method: addOne, Impl: func(_ context.Context, call *server.Call) error {
		r.mu.Lock()
		r.got = append(r.got, call.Args().Uint64(0))
		r.mu.Unlock()
		_, err := call.AllocResults(capnp.ObjectSize{DataSize: 8})
		return err
	}}}, nil, nil))
}

// sendAdd starts addOne(x) on c without waiting.
func sendAdd(ctx context.Context, c capnp.Client, x uint64) (*capnp.Answer, capnp.ReleaseFunc) {
	return c.SendCall(ctx, capnp.Send{
		Method: addOne, ArgsSize: capnp.ObjectSize{DataSize: 8},
		PlaceArgs: func(s capnp.Struct) error { s.SetUint64(0, x); return nil },
	})
}

// TestEmbargoKeepsOrder: we pass our own capability to the peer's echo
// and pipeline calls on the answer (they go to the peer, which reflects
// them back to us); once the answer returns our capability, new calls
// would reach it locally at once. The embargo (a Disembargo round trip,
// sent after the last pipelined Call) makes them wait for the reflected
// ones: the capability sees every call in the order it was made. The
// peer is our engine: go-capnp v3.1.0-alpha.2's, as the peer of ours,
// itself reorders the pipelined calls it forwards back now and then
// (observed [1 2 3 4 0 5 ...] in 1 of ~30 runs), which no embargo of the
// caller can repair.
func TestEmbargoKeepsOrder(t *testing.T) {
	ctx := testCtx(t)
	a, b := newPipe()
	srv := engine.NewConn(a, &engine.Options{BootstrapClient: newMaker()})
	cli := engine.NewConn(b, nil)
	t.Cleanup(func() { _ = cli.Close(); waitDone(t, srv.Done()) })
	maker := cli.Bootstrap(ctx)
	defer maker.Release()
	rec := &recorder{}
	local := rec.client()
	defer local.Release()
	ans, release := maker.SendCall(ctx, capnp.Send{
		Method: echoCap, ArgsSize: capnp.ObjectSize{PointerCount: 1},
		PlaceArgs: func(s capnp.Struct) error { return s.SetPtr(0, local.AddRef().EncodeAsPtr(s.Segment())) },
	})
	defer release()
	echoed := ans.Field(0, nil).Client()
	const n = 20
	var waits []*capnp.Answer
	for i := uint64(0); i < n; i++ {
		a, rel := sendAdd(ctx, echoed, i)
		defer rel()
		waits = append(waits, a)
	}
	if _, err := ans.Struct(); err != nil {
		t.Fatal(err)
	}
	for i := uint64(n); i < 2*n; i++ {
		a, rel := sendAdd(ctx, echoed, i)
		defer rel()
		waits = append(waits, a)
	}
	for _, a := range waits {
		if _, err := a.Struct(); err != nil {
			t.Fatal(err)
		}
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for i, x := range rec.got {
		if x != uint64(i) {
			t.Fatalf("calls reached our capability in the order %v; want 0..%d", rec.got, 2*n-1)
		}
	}
}
