package engine_test

import (
	"context"
	"testing"

	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"
)

// TestImportsOfOneExportAreSame: two descriptors of one export of the
// peer give clients that are IsSame, and releasing both gives the peer
// back both references.
func TestImportsOfOneExportAreSame(t *testing.T) {
	const theirs = 5
	cli, _, peer := startRaw(t, func(rpccp.Message) bool { return false })
	ctx := testCtx(t)
	b1 := cli.Bootstrap(ctx)
	q1 := questionOf(peer.await(rpccp.Message_Which_bootstrap))
	peer.sendReturnCap(q1, theirs)
	b2 := cli.Bootstrap(ctx)
	q2 := questionOf(peer.await(rpccp.Message_Which_bootstrap))
	peer.sendReturnCap(q2, theirs)
	for _, b := range []interface {
		Resolve(ctx context.Context) error
	}{b1, b2} {
		if err := b.Resolve(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if !b1.IsSame(b2) {
		t.Error("two imports of the peer's export 5 are not IsSame")
	}
	b1.Release()
	b2.Release()
	released := uint32(0)
	for released < 2 {
		r, _ := peer.await(rpccp.Message_Which_release).Release()
		if r.Id() != theirs {
			t.Fatalf("Release of %d, want %d", r.Id(), theirs)
		}
		released += r.ReferenceCount()
	}
}
