package capnweb

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/wire"
)

// sink is the vat's OpSink for a Cap'n Web subscriber: a local Cap'n
// Proto server that forwards each push to the peer's sink stub and
// answers only once the peer has answered, so that the vat's byte window
// (Quotas.PushWindow) counts the pushes the peer has not answered yet.
//
// The peer's sink is an object with push(ops) and optionally end(code,
// detail), or a function (ops, end?) (docs/capnweb.md, Subscriptions).
// The first push tries push(ops); capnweb answers a function asked for a
// property with a TypeError "… is not a function", and from then on the
// sink is called as a function: f(ops) for pushes, f([], {code, detail})
// for the end.
//
// go-capnp runs the calls of one server one at a time, in order, until
// a call lets the next one start (call.Go): the first push does not, so
// mode is set before any other call reads it; later pushes send their
// message first and then let the next call start, so pushes and end
// reach the peer in the vat's order.
type sink struct {
	stub   *capnweb.Stub
	mode   sinkMode    // set by the first push, before any other runs
	broken atomic.Bool // a push failed: the subscription is over
	once   sync.Once
}

type sinkMode int

const (
	modeUnknown  sinkMode = iota // no push answered yet
	modeObject                   // push(ops) worked
	modeFunction                 // the sink is a function
)

var _ schema.OpSink_Server = (*sink)(nil)

// newSink serves stub, which the sink owns from now on.
func newSink(stub *capnweb.Stub) *sink { return &sink{stub: stub} }

// errPushFailed is what a failed push answers the vat, which then ends
// the subscription (without end).
var errPushFailed = sharevat.Errorf(sharevat.EUnavailable, "the subscriber did not take the push")

// Push forwards one push and waits for the peer's answer.
func (k *sink) Push(ctx context.Context, call schema.OpSink_push) error {
	if ctx.Err() != nil { // the subscription ended while this push waited
		return context.Cause(ctx)
	}
	if k.broken.Load() {
		return errPushFailed
	}
	if err := k.push(ctx, call); err != nil {
		k.broken.Store(true)
		return err
	}
	return nil
}

// push forwards one push. The first finds out what the sink is, and is
// answered before the next is sent; from then on each push is sent at
// once, in order, and the next may be sent before it is answered (the
// vat's window bounds how many), as over /rpc.
func (k *sink) push(ctx context.Context, call schema.OpSink_push) error {
	entries, err := read(call.Args().Ops, wire.ReadEntries)
	if err != nil {
		return err
	}
	ops := entriesValue(entries)
	if k.mode == modeUnknown {
		return k.first(ctx, ops)
	}
	method := "push"
	if k.mode == modeFunction {
		method = ""
	}
	p := k.stub.Pipe(method, ops) // sent now: pushes keep their order
	defer p.Release()
	call.Go() // the next push may go out while this one waits
	if _, err := p.Await(ctx); err != nil {
		return errPushFailed
	}
	return nil
}

// first sends the first push as push(ops), and when capnweb answers
// that the sink has no push, calls the sink as a function.
func (k *sink) first(ctx context.Context, ops []capnweb.Value) error {
	_, err := k.stub.Call(ctx, "push", ops)
	if err == nil {
		k.mode = modeObject
		return nil
	}
	if !isNotFunction(err) {
		return errPushFailed
	}
	k.mode = modeFunction
	if _, err := k.stub.Call(ctx, "", ops); err != nil {
		return errPushFailed
	}
	return nil
}

// End tells the peer why the subscription ended: end(code, detail) on an
// object (a sink without end is fine), f([], {code, detail}) on a
// function.
func (k *sink) End(ctx context.Context, call schema.OpSink_end) error {
	code, err := call.Args().Code()
	if err != nil {
		return err
	}
	detail, err := call.Args().Detail()
	if err != nil {
		return err
	}
	if k.mode != modeFunction {
		_, err = k.stub.Call(ctx, "end", code, detail)
		if k.mode == modeObject || !isNotFunction(err) {
			return ignoreNotFunction(err)
		}
	}
	end := capnweb.NewObject().Set("code", code).Set("detail", detail)
	_, err = k.stub.Call(ctx, "", []capnweb.Value{}, end)
	return ignoreNotFunction(err)
}

// ignoreNotFunction drops the TypeError of a sink that has no end.
func ignoreNotFunction(err error) error {
	if err == nil || isNotFunction(err) {
		return nil
	}
	return errPushFailed
}

// Shutdown releases the peer's stub once the vat has released the sink
// (the subscription ended) or the subscribe call never took it.
func (k *sink) Shutdown() { k.once.Do(k.stub.Release) }
