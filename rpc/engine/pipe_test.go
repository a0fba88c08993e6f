package engine_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	capnp "capnproto.org/go/capnp/v3"
	capnprpc "capnproto.org/go/capnp/v3/rpc"
	"capnproto.org/go/capnp/v3/rpc/transport"
	"capnproto.org/go/capnp/v3/server"

	"github.com/sharevat/sharevat/rpc/engine"
)

// safety turns a hang into a failure; tests synchronise on channels.
const safety = 10 * time.Second

// pipeCodec is one end of an in-memory transport.Codec pair: Encode
// marshals (the caller releases its message), Decode unmarshals.
type pipeCodec struct {
	in, out chan []byte
	closed  chan struct{}
	once    *sync.Once
}

var errPipeClosed = errors.New("pipe closed")

func newPipe() (*pipeCodec, *pipeCodec) { return newPipeN(64) }

// newPipeN is newPipe holding up to n messages each way.
func newPipeN(n int) (*pipeCodec, *pipeCodec) {
	a, b := make(chan []byte, n), make(chan []byte, n)
	closed, once := make(chan struct{}), &sync.Once{}
	return &pipeCodec{in: a, out: b, closed: closed, once: once},
		&pipeCodec{in: b, out: a, closed: closed, once: once}
}

func (p *pipeCodec) Encode(m *capnp.Message) error {
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	select {
	case p.out <- b:
		return nil
	case <-p.closed:
		return errPipeClosed
	}
}

func (p *pipeCodec) Decode() (*capnp.Message, error) {
	select {
	case b := <-p.in:
		return capnp.Unmarshal(b)
	case <-p.closed:
		return nil, errPipeClosed
	}
}

func (p *pipeCodec) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

var _ transport.Codec = (*pipeCodec)(nil)

// Test capabilities, described by hand (no schema needed).
var (
	addOne   = capnp.Method{InterfaceID: 0xd8a061b42c3e9f01, MethodID: 0, InterfaceName: "Adder", MethodName: "addOne"}
	makeOne  = capnp.Method{InterfaceID: 0xd8a061b42c3e9f02, MethodID: 0, InterfaceName: "Maker", MethodName: "make"}
	callBack = capnp.Method{InterfaceID: 0xd8a061b42c3e9f02, MethodID: 1, InterfaceName: "Maker", MethodName: "callBack"}
	echoCap  = capnp.Method{InterfaceID: 0xd8a061b42c3e9f02, MethodID: 2, InterfaceName: "Maker", MethodName: "echo"}
)

func newAdder() capnp.Client {
	return capnp.NewClient(server.New([]server.Method{{Method: addOne, Impl: func(_ context.Context, call *server.Call) error {
		res, err := call.AllocResults(capnp.ObjectSize{DataSize: 8})
		if err != nil {
			return err
		}
		res.SetUint64(0, call.Args().Uint64(0)+1)
		return nil
	}}}, nil, nil))
}

// newMaker's make returns a new adder in pointer field 0 (for
// pipelining); callBack(cb, x) calls addOne(x) on the capability cb it is
// given and returns cb's answer.
func newMaker() capnp.Client {
	return capnp.NewClient(server.New([]server.Method{
		{Method: makeOne, Impl: func(_ context.Context, call *server.Call) error {
			res, err := call.AllocResults(capnp.ObjectSize{PointerCount: 1})
			if err != nil {
				return err
			}
			return res.SetPtr(0, newAdder().EncodeAsPtr(res.Segment()))
		}},
		{Method: echoCap, Impl: func(_ context.Context, call *server.Call) error {
			p, err := call.Args().Ptr(0)
			if err != nil {
				return err
			}
			res, err := call.AllocResults(capnp.ObjectSize{PointerCount: 1})
			if err != nil {
				return err
			}
			return res.SetPtr(0, p.Interface().Client().AddRef().EncodeAsPtr(res.Segment()))
		}},
		{Method: callBack, Impl: func(ctx context.Context, call *server.Call) error {
			p, err := call.Args().Ptr(0)
			if err != nil {
				return err
			}
			cb := p.Interface().Client()
			n, err := callAdd(ctx, cb, call.Args().Uint64(0))
			if err != nil {
				return err
			}
			res, err := call.AllocResults(capnp.ObjectSize{DataSize: 8})
			if err != nil {
				return err
			}
			res.SetUint64(0, n)
			return nil
		}},
	}, nil, nil))
}

func callAdd(ctx context.Context, c capnp.Client, x uint64) (uint64, error) {
	ans, release := c.SendCall(ctx, capnp.Send{
		Method: addOne, ArgsSize: capnp.ObjectSize{DataSize: 8},
		PlaceArgs: func(s capnp.Struct) error { s.SetUint64(0, x); return nil },
	})
	defer release()
	res, err := ans.Struct()
	if err != nil {
		return 0, err
	}
	return res.Uint64(0), nil
}

// callCallBack asks maker to call addOne(x) on cb.
func callCallBack(ctx context.Context, maker, cb capnp.Client, x uint64) (uint64, error) {
	ans, release := maker.SendCall(ctx, capnp.Send{
		Method: callBack, ArgsSize: capnp.ObjectSize{DataSize: 8, PointerCount: 1},
		PlaceArgs: func(s capnp.Struct) error {
			s.SetUint64(0, x)
			return s.SetPtr(0, cb.AddRef().EncodeAsPtr(s.Segment()))
		},
	})
	defer release()
	res, err := ans.Struct()
	if err != nil {
		return 0, err
	}
	return res.Uint64(0), nil
}

// pair is our engine on one end of a pipe and go-capnp's on the other.
type pair struct {
	ours   *engine.Conn
	theirs *capnprpc.Conn
}

// mustPair connects our engine (offering ourBoot) to go-capnp's
// (offering theirBoot); cleanup closes both and waits for them.
func mustPair(tb testing.TB, ourBoot, theirBoot capnp.Client) pair {
	tb.Helper()
	a, b := newPipe()
	p := pair{
		ours:   engine.NewConn(a, &engine.Options{BootstrapClient: ourBoot}),
		theirs: capnprpc.NewConn(transport.New(b), &capnprpc.Options{BootstrapClient: theirBoot}),
	}
	tb.Cleanup(func() {
		_ = p.ours.Close()
		_ = p.theirs.Close()
		waitDone(tb, p.ours.Done())
	})
	return p
}

func waitDone(tb testing.TB, done <-chan struct{}) {
	tb.Helper()
	select {
	case <-done:
	case <-time.After(safety):
		tb.Fatal("connection did not shut down")
	}
}

func testCtx(tb testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), safety)
	tb.Cleanup(cancel)
	return ctx
}
