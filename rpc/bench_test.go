package rpc_test

import (
	"context"
	"testing"

	capnp "capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/rpc"
)

// benchEngines are the engines BenchmarkCall compares, server and client
// on the same engine.
var benchEngines = []rpc.Engine{rpc.EngineGoCapnp, rpc.EngineSharevat}

// BenchmarkCall measures one no-op-sized call (uint64 in, uint64 out) over
// the WebSocket transport on loopback, per engine
// (BenchmarkCall/sequential/sharevat).
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	b.Run("sequential", func(b *testing.B) {
		for _, e := range benchEngines {
			b.Run(string(e), func(b *testing.B) {
				boot := benchBootstrap(b, e)
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					if _, err := callAdd(ctx, boot, uint64(i)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
	b.Run("parallel", func(b *testing.B) {
		for _, e := range benchEngines {
			b.Run(string(e), func(b *testing.B) {
				boot := benchBootstrap(b, e)
				b.ReportAllocs()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if _, err := callAdd(ctx, boot, 1); err != nil {
							b.Error(err)
							return
						}
					}
				})
			})
		}
	})
}

// benchBootstrap serves an adder on engine e and returns a client's
// bootstrap capability, both ends on e.
func benchBootstrap(b *testing.B, e rpc.Engine) capnp.Client {
	b.Helper()
	srv := mustServe(b, rpc.HandlerOptions{Engine: e})
	return mustBootstrap(b, mustDial(b, srv.WSURL, &rpc.DialOptions{Engine: e}))
}
