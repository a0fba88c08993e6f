package engine_test

import (
	"context"
	"testing"

	capnp "capnproto.org/go/capnp/v3"
	"capnproto.org/go/capnp/v3/server"
	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// promised is what newPromiser's echo hands the test: the resolver of the
// promise it returned, and the capability it was given.
type promised struct {
	res capnp.Resolver[capnp.Client]
	arg capnp.Client
}

// newPromiser's echo returns a local promise, which the test resolves.
func newPromiser(out chan<- promised) capnp.Client {
	return capnp.NewClient(server.New([]server.Method{{Method: echoCap, Impl: func(_ context.Context, call *server.Call) error {
		p, err := call.Args().Ptr(0)
		if err != nil {
			return err
		}
		promise, res := capnp.NewLocalPromise[capnp.Client]()
		out <- promised{res: res, arg: p.Interface().Client().AddRef()}
		results, err := call.AllocResults(capnp.ObjectSize{PointerCount: 1})
		if err != nil {
			return err
		}
		return results.SetPtr(0, promise.EncodeAsPtr(results.Segment()))
	}}}, nil, nil))
}

// TestExportedPromiseResolves: a promise of ours sent to the peer goes as
// senderPromise, and its resolution follows as a Resolve: receiverHosted
// when it resolved to the peer's own capability (so the peer can shorten
// the path), else the resolution exported, which then serves calls.
func TestExportedPromiseResolves(t *testing.T) {
	const theirs = 10
	for _, toPeer := range []bool{true, false} {
		t.Run(map[bool]string{true: "to-the-peer's-capability", false: "to-a-local-capability"}[toPeer], func(t *testing.T) {
			out := make(chan promised, 1)
			peer := serveRaw(t, newPromiser(out))
			boot := peer.bootstrap(0)
			peerCap := uint32(theirs)
			peer.sendCall(1, rawTarget{id: boot}, echoCap, &peerCap)
			got := <-out
			defer got.arg.Release()
			d, ok := resultDesc(peer.expectReturn(1), 0)
			if !ok || d.Which() != rpccp.CapDescriptor_Which_senderPromise {
				t.Fatalf("the unresolved promise went as %s, want senderPromise", d.Which())
			}
			promiseID := d.SenderPromise()
			if toPeer {
				got.res.Fulfill(got.arg.AddRef())
			} else {
				got.res.Fulfill(newAdder())
			}
			res, _ := peer.await(rpccp.Message_Which_resolve).Resolve()
			rd, _ := res.Cap()
			if res.PromiseId() != promiseID || res.Which() != rpccp.Resolve_Which_cap {
				t.Fatalf("Resolve of %d (%s), want promise %d resolved to a capability", res.PromiseId(), res.Which(), promiseID)
			}
			if toPeer {
				if rd.Which() != rpccp.CapDescriptor_Which_receiverHosted || rd.ReceiverHosted() != theirs {
					t.Fatalf("resolved to %s, want receiverHosted %d", rd.Which(), theirs)
				}
				// The peer embargoes its calls on the promise: our
				// engine reflects the Disembargo to the peer's capability.
				peer.sendLoopback(rawTarget{id: promiseID}, 3)
				dm, _ := peer.await(rpccp.Message_Which_disembargo).Disembargo()
				tgt, _ := dm.Target()
				if dm.Context().Which() != rpccp.Disembargo_context_Which_receiverLoopback || dm.Context().ReceiverLoopback() != 3 ||
					tgt.Which() != rpccp.MessageTarget_Which_importedCap || tgt.ImportedCap() != theirs {
					t.Fatalf("want Disembargo(receiverLoopback 3) to the peer's capability %d", theirs)
				}
				return
			}
			if rd.Which() != rpccp.CapDescriptor_Which_senderHosted {
				t.Fatalf("resolved to %s, want senderHosted", rd.Which())
			}
			peer.sendCall(2, rawTarget{id: rd.SenderHosted()}, addOne, nil)
			if r := peer.expectReturn(2); r.Which() != rpccp.Return_Which_results {
				t.Fatalf("a call on the resolution answered %s", r.Which())
			}
		})
	}
}
