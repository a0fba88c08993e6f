package engine

// The bootstrap capability the engine serves in the suite: a Reader of
// schema/sharevat.capnp (read is the simple method, subscribe takes a
// capability, calls it back and returns one), implemented here, with
// hooks the tests observe and steer it by.

import (
	"context"
	"sync"

	capnp "capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/schema"
)

// bootServer implements schema.Reader_Server.
type bootServer struct {
	// gate, when not nil, holds every subscribe until closed.
	gate chan struct{}
	// deaf makes the gate ignore the call's cancellation: subscribe
	// answers results even after the peer's Finish.
	deaf bool
	// shutdown is closed when the engine releases its last reference.
	shutdown chan struct{}
	once     sync.Once
	// echoSink makes subscribe answer the sink it was given as the
	// subscription (a capability of the peer's, handed back to it).
	echoSink bool
	// callback is the result of the sink's end call a subscribe made.
	callback chan error
}

func newBootServer() *bootServer {
	return &bootServer{shutdown: make(chan struct{}), callback: make(chan error, 16)}
}

func (b *bootServer) client() capnp.Client {
	return capnp.Client(schema.Reader_ServerToClient(b))
}

// Shutdown is called when the last reference to the client is released.
func (b *bootServer) Shutdown() { b.once.Do(func() { close(b.shutdown) }) }

// withOps is the fromCursor for which read answers a one-entry ops list
// (a pointer field that is not a capability); others leave ops null.
const withOps = 1000

// Read answers head = fromCursor.
func (b *bootServer) Read(_ context.Context, call schema.Reader_read) error {
	from := call.Args().FromCursor()
	res, err := call.AllocResults()
	if err != nil {
		return err
	}
	res.SetHead(from)
	if from == withOps {
		_, err = res.NewOps(1)
	}
	return err
}

// Snapshot answers an empty snapshot.
func (b *bootServer) Snapshot(context.Context, schema.Reader_snapshot) error { return nil }

// SnapshotPage answers empty results.
func (b *bootServer) SnapshotPage(context.Context, schema.Reader_snapshotPage) error { return nil }

// Save is not used by the suite.
func (b *bootServer) Save(context.Context, schema.Reader_save) error { return nil }

// Subscribe waits for the gate (when set), calls sink.end("callback", "")
// when a sink was given and waits for its answer, releasing it before
// returning (so a prompt engine sends its Finish before this call's
// Return), then answers a new Subscription.
func (b *bootServer) Subscribe(ctx context.Context, call schema.Reader_subscribe) error {
	if g := b.gate; g != nil && b.deaf {
		<-g
	} else if g != nil {
		select {
		case <-g:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if b.echoSink {
		res, err := call.AllocResults()
		if err != nil {
			return err
		}
		return res.SetSubscription(schema.Subscription(call.Args().Sink().AddRef()))
	}
	if sink := call.Args().Sink(); sink.IsValid() {
		fut, release := sink.End(ctx, func(p schema.OpSink_end_Params) error { return p.SetCode("callback") })
		_, err := fut.Struct()
		release()
		b.callback <- err
		if err != nil {
			return err
		}
	}
	res, err := call.AllocResults()
	if err != nil {
		return err
	}
	return res.SetSubscription(schema.Subscription_ServerToClient(&subServer{}))
}

// subServer is the Subscription subscribe answers: cursor answers how many
// cursor calls it received before this one, so the answers show the order
// of delivery.
type subServer struct {
	mu sync.Mutex
	n  uint64
}

// Cursor answers the number of earlier cursor calls.
func (s *subServer) Cursor(_ context.Context, call schema.Subscription_cursor) error {
	s.mu.Lock()
	n := s.n
	s.n++
	s.mu.Unlock()
	res, err := call.AllocResults()
	if err != nil {
		return err
	}
	res.SetCursor(n)
	return nil
}
