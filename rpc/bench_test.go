package rpc_test

import (
	"context"
	"testing"

	capnp "capnproto.org/go/capnp/v3"

	"github.com/sharevat/sharevat/rpc"
)

// BenchmarkCall measures one no-op-sized call (uint64 in, uint64 out) over
// the WebSocket transport on loopback.
func BenchmarkCall(b *testing.B) {
	ctx := context.Background()
	b.Run("sequential", func(b *testing.B) {
		boot := benchBootstrap(b)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := callAdd(ctx, boot, uint64(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		boot := benchBootstrap(b)
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

// benchBootstrap serves an adder and returns a client's bootstrap
// capability.
func benchBootstrap(b *testing.B) capnp.Client {
	b.Helper()
	srv := mustServe(b, rpc.HandlerOptions{})
	return mustBootstrap(b, mustDial(b, srv.WSURL, nil))
}
