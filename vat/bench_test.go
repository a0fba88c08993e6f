package vat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// BenchmarkRestore measures redeeming a token over a real WebSocket: parse,
// cached grant lookup, keyed-hash verify, audit record, and the round trip.
func BenchmarkRestore(b *testing.B) {
	tv := MustServe(b, sharevat.Limits{}, nil)
	owner := tv.MustCreate(b, "bench")
	conn := tv.MustDial(b)
	b.ResetTimer()
	for b.Loop() {
		sh, err := conn.Redeem(bg, owner)
		require.NoError(b, err)
		sh.Release()
	}
}

// BenchmarkInfoCall is the cheapest checked call (Share.info) over the
// same transport: the per-call validity check plus a store read and the
// round trip. Compare with rpc.BenchmarkCall for the bare transport.
func BenchmarkInfoCall(b *testing.B) {
	tv := MustServe(b, sharevat.Limits{}, nil)
	sh := tv.MustRestore(b, tv.MustCreate(b, "bench"))
	b.ResetTimer()
	for b.Loop() {
		_, _, err := sh.Fetch(bg)
		require.NoError(b, err)
	}
}
