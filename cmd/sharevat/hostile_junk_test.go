package main_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/hostile"
)

// TestHostileJunkRPC is /rpc attacked by peers that hold no token (issue
// 32): against a real `sharevat serve` with TestHostileMemoryBound's
// budgets, 4 connections each send 100,000 Vault.restore calls with
// junk tokens (half of the token format, so the vat looks each up and
// checks it; half random bytes up to 4 KiB), 256 unanswered at a time,
// and 4 connections send 8 MiB binary frames of random bytes, while a
// healthy client connected before the attack keeps appending and reading
// back. Invariants: no junk token restores; the memory bound of
// memoryAttack holds; the healthy client keeps working; serve is alive
// and serves a fresh client after. Attack 15 s.
func TestHostileJunkRPC(t *testing.T) {
	vectors := func(ctx context.Context, url string) []func() *hostile.Report {
		var vs []func() *hostile.Report
		for range 4 {
			vs = append(vs,
				func() *hostile.Report { return hostile.JunkRestores(ctx, url, 100_000, 256) },
				func() *hostile.Report { return hostile.JunkFrames(ctx, url, 50, 8<<20) })
		}
		return vs
	}
	junkAttack(t, hostileSlack, map[string]healthyStart{"/rpc": hostile.StartHealthy}, vectors)
}

// TestHostileJunkWeb is TestHostileJunkRPC for the Cap'n Web door
// (/capnweb): 4 sessions of 100,000 restore(junk token) pushes, each
// pulled and released, 256 unanswered at a time, and 4 sessions of 8 MiB
// text frames that are not JSON, while a healthy Cap'n Web client and a
// healthy /rpc client keep working. Its slack is TestHostileWebMemoryBound's.
func TestHostileJunkWeb(t *testing.T) {
	vectors := func(ctx context.Context, url string) []func() *hostile.Report {
		var vs []func() *hostile.Report
		for range 4 {
			vs = append(vs,
				func() *hostile.Report { return hostile.WebJunkRestores(ctx, url, 100_000, 256) },
				func() *hostile.Report { return hostile.WebJunkFrames(ctx, url, 50, 8<<20) })
		}
		return vs
	}
	junkAttack(t, webSlack, map[string]healthyStart{"Cap'n Web": hostile.StartWebHealthy, "/rpc": hostile.StartHealthy}, vectors)
}

// junkAttack runs the vectors vectors makes, all at once, against a real
// serve for 15 s under memoryAttack, and fails if any junk token
// restored. (A vector's other errors, a dial refused or timed out while
// the server sheds load, are logged in its report.)
func junkAttack(t *testing.T, slack int64, healthy map[string]healthyStart, vectors func(ctx context.Context, url string) []func() *hostile.Report) {
	if testing.Short() {
		t.Skip("the attack runs ~15 s")
	}
	bin := os.Getenv("SHAREVAT_HOSTILE_BIN")
	if bin == "" {
		var err error
		bin, err = buildPlain()
		require.NoError(t, err)
	}
	srv, fx := startHostileTarget(t, bin, 2, 1<<10, hostileServeFlags()...)
	var reports []*hostile.Report
	memoryAttack(t, srv, fx, 15*time.Second, slack, healthy, func(ctx context.Context) []*hostile.Report {
		vs := vectors(ctx, srv.URL)
		reports = make([]*hostile.Report, len(vs))
		var wg sync.WaitGroup
		for i, v := range vs {
			wg.Go(func() { reports[i] = v() })
		}
		wg.Wait()
		return reports
	})
	for _, r := range reports {
		assert.NotErrorIs(t, r.Err, hostile.ErrJunkAccepted, "%s", r.Vector)
	}
}
