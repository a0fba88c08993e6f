package rpc_test

import (
	"context"
	"testing"

	"sharevat/rpc"
)

// BenchmarkCall measures one no-op-sized call (uint64 in, uint64 out) over
// the WebSocket transport on loopback.
func BenchmarkCall(b *testing.B) {
	srv := mustServe(b, rpc.HandlerOptions{})
	boot := mustBootstrap(b, mustDial(b, srv.WSURL, nil))
	ctx := context.Background()
	b.Run("sequential", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := callAdd(ctx, boot, uint64(i)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
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
