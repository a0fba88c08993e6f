package rpc_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	rpccp "capnproto.org/go/capnp/v3/std/capnp/rpc"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/hostile"
	"github.com/sharevat/sharevat/internal/vattest"
	"github.com/sharevat/sharevat/rpc"
	"github.com/sharevat/sharevat/store/bolt"
	"github.com/sharevat/sharevat/vat"
)

// The server of the big-read tests, the defaults scaled down 32 times so
// the test is quick under the race detector: a 256 KiB read budget (8
// MiB by default) and a 1 MiB connection budget (64 MiB), over 80 ops of
// 32 kB (1 MB), so every Reader.read(from, 0) answers 8 ops, ~256 KiB.
const (
	bigReadOps    = 80
	bigReadBody   = 32_000
	bigReadBudget = 256 << 10
	bigConnMemory = 1 << 20
	bigReads      = 50
)

// bigReadStores are the stores the big-read tests read from: the ops
// still in the write-ahead log (applied to bbolt only after an hour),
// and the ops in bbolt (no log).
var bigReadStores = map[string]bolt.Options{
	"log":   {ApplyBytes: 1 << 40, ApplyEvery: time.Hour},
	"bbolt": {NoWAL: true},
}

// startBigReads starts the scaled-down server with opts as its store,
// creates a share, appends the big ops and returns the owner token.
func startBigReads(t *testing.T, opts bolt.Options) (*vattest.Server, string) {
	t.Helper()
	srv := vattest.Start(t, vattest.Options{
		Bolt:    opts,
		Config:  func(c *vat.Config) { c.ReadBudget = bigReadBudget },
		Handler: func(h *rpc.HandlerOptions) { h.ConnMemory = bigConnMemory },
	})
	token := srv.MustCreate(t, "big reads")
	ctx := context.Background()
	app, err := srv.MustRestore(t, token).Appender(ctx)
	require.NoError(t, err)
	defer app.Release()
	body := []byte(`{"pad":"` + strings.Repeat("x", bigReadBody-10) + `"}`)
	for first := 0; first < bigReadOps; first += 8 {
		b := &sharevat.Batch{BatchID: fmt.Sprintf("b%d", first), Epoch: 1}
		for i := first; i < first+8; i++ {
			b.Ops = append(b.Ops, sharevat.Op{OpID: fmt.Sprintf("op%d", i), Kind: "event", Body: body})
		}
		_, err := app.Append(ctx, b)
		require.NoError(t, err, "batch at op %d", first)
	}
	return srv, token
}

// TestSequentialBigReads is the big-read budget's regression test: a client that reads big
// answers one after another on one connection, each finished before the
// next, is never closed for its memory budget, whether the ops are still
// in the write-ahead log or already in bbolt.
//
// go-capnp's client sent the Finish for an answer ~250 ms after its
// Return arrived, and the server kept the answer (and counted it) until
// then: reads faster than that piled up answers awaiting their Finish
// until one more did not fit, and the connection was closed with 1008
// "connection memory budget … exceeded". Our engine's Return for a read
// says noFinishNeeded (its results hold no capability), so the server
// keeps nothing once it is written.
func TestSequentialBigReads(t *testing.T) {
	for name, opts := range bigReadStores {
		t.Run(name, func(t *testing.T) {
			srv, token := startBigReads(t, opts)
			r, err := srv.MustRestore(t, token).Reader(context.Background())
			require.NoError(t, err)
			defer r.Release()
			for i := range bigReads {
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				from := sharevat.Cursor(i * 8 % bigReadOps)
				entries, head, err := r.Read(ctx, from, 0)
				cancel()
				require.NoError(t, err, "read %d from %d", i+1, from)
				require.Len(t, entries, 8, "read %d from %d", i+1, from)
				require.Equal(t, from+1, entries[0].Cursor, "read %d", i+1)
				require.Equal(t, sharevat.Cursor(bigReadOps), head, "read %d", i+1)
			}
		})
	}
}

// TestBigReadsNeverFinished: a read's answer holds no capability, so
// the server's Return says noFinishNeeded and keeps nothing: a peer that
// reads big answers one after another and never sends Finish is not
// holding them, and gets every one without its connection being closed.
// (A peer that hoards answers that do need a Finish is closed by the
// budget: TestMemoryPool, TestMemoryPoolEvictsTheLargest.)
func TestBigReadsNeverFinished(t *testing.T) {
	srv, token := startBigReads(t, bigReadStores["log"])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := hostile.Dial(ctx, srv.URL)
	require.NoError(t, err)
	defer c.Close()
	returns := make(chan hostile.Incoming, 1)
	c.Read(func(data []byte) {
		if in, err := hostile.Decode(data); err == nil && in.Which == rpccp.Message_Which_return && in.ID >= 3 {
			returns <- in
		}
	})
	require.NoError(t, c.Queue(hostile.Bootstrap(0)))
	require.NoError(t, c.Queue(hostile.RestoreCall(1, 0, token)))
	require.NoError(t, c.Queue(hostile.ReaderCall(2, 1)))
	for q := uint32(3); q < 3+bigReads; q++ {
		require.NoError(t, c.Send(hostile.ReadCall(q, 2, 0, 0)))
		select {
		case in := <-returns:
			require.Equal(t, q, in.ID)
			require.False(t, in.IsException(), "read %d: %s", q, in.Exception)
		case <-c.Done():
			t.Fatalf("closed after %d answers: %s", q-3, c.Wait(time.Second))
		}
	}
}
