package main_test

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/hostile"
)

// TestHostileMCPMemoryBound is TestHostileMemoryBound for the MCP door
// (/mcp over Streamable HTTP, and `sharevat mcp` over stdio; issue 32):
// every MCP vector at once against a real `sharevat serve` (built
// without the race detector) with the same small budgets, while two
// healthy clients — one over /mcp (the go-sdk client), one over /rpc,
// both on the owner token and connected before the attack — keep
// appending one op and reading it back. The vectors
// (internal/hostile/mcp.go, mcpstdio.go):
//
//   - junk initializes: 2,048 initializes, each with a junk bearer of its
//     own, 16 at once (bug 2: they held the 1,024 session slots);
//   - junk appends: 16 clients posting ~7 MiB append_ops with bearer
//     "garbage", over and over (bug 3: 2,359 MiB on a 512 MiB budget);
//   - valid appends: 8 clients posting ~7 MiB append_ops (decoded in
//     full, their ops refused) with a read,append grant of their own;
//   - withheld bodies: 40 connections declaring 7 MiB with bearer
//     "garbage", and 40 with another valid grant, each sending 12 bytes;
//   - stdio: `sharevat mcp` with a junk token fed lines that are not
//     JSON, over 9 MiB, and a 400,000-op append_ops, three rounds.
//
// The bound is TestHostileWebMemoryBound's (the MCP SDK decodes JSON
// as Cap'n Web does):
//
//	peak VmRSS ≤ baseline + 1.5 × memory-budget + webSlack
//
// Invariants: the bound holds; serve is alive at the end; each healthy
// client completed at least 20 rounds, some in the second half of the
// attack; a fresh client works afterwards (memoryAttack); `sharevat mcp`
// answered every line and lived.
func TestHostileMCPMemoryBound(t *testing.T) {
	if testing.Short() {
		t.Skip("the attack runs ~30 s")
	}
	bin := os.Getenv("SHAREVAT_HOSTILE_BIN")
	if bin == "" {
		var err error
		bin, err = buildPlain()
		require.NoError(t, err)
	}
	srv, fx := startHostileTarget(t, bin, 8, seedOpBytes, hostileServeFlags()...)
	appenders := [2]string{mintAppender(t, srv.URL, fx.Owner), mintAppender(t, srv.URL, fx.Owner)}
	const attack = 20 * time.Second
	var reports []*hostile.Report
	memoryAttack(t, srv, fx, attack, webSlack, map[string]healthyStart{"MCP": hostile.StartMCPHealthy, "/rpc": hostile.StartHealthy},
		func(ctx context.Context) []*hostile.Report {
			reports = runMCPVectors(ctx, bin, srv.URL, appenders, attack)
			return reports
		})
	stdio := reports[len(reports)-1]
	require.NoError(t, stdio.Err, "sharevat mcp answered every junk line and lived")
	answered := 0
	for _, n := range stdio.Ends {
		answered += n
	}
	require.Equal(t, 3*5, answered, "every line answered: %v", stdio.Ends)
}

// runMCPVectors runs every MCP vector at once and returns their reports,
// the stdio one last.
func runMCPVectors(ctx context.Context, bin, url string, appenders [2]string, attack time.Duration) []*hostile.Report {
	vectors := []func() *hostile.Report{
		func() *hostile.Report { return hostile.MCPJunkInitialize(ctx, url, 2048, 16) },
		func() *hostile.Report { return hostile.MCPAppendFlood(ctx, url, "garbage", 16, 7<<20) },
		func() *hostile.Report { return hostile.MCPAppendFlood(ctx, url, appenders[0], 8, 7<<20) },
		func() *hostile.Report { return hostile.MCPWithheldBodies(ctx, url, "garbage", 40, 7<<20, attack*3/5) },
		func() *hostile.Report {
			return hostile.MCPWithheldBodies(ctx, url, appenders[1], 40, 7<<20, attack*3/5)
		},
		func() *hostile.Report { return hostile.MCPStdioJunk(ctx, bin, url, "garbage", 3) },
	}
	reports := make([]*hostile.Report, len(vectors))
	var wg sync.WaitGroup
	for i, v := range vectors {
		wg.Go(func() { reports[i] = v() })
	}
	wg.Wait()
	return reports
}

// mintAppender grants a read,append token of its own from owner, for a
// vector that uses valid credentials: its charges fall on that grant's
// share of the budget, not the healthy clients' owner grant's nor
// another vector's.
func mintAppender(t *testing.T, url, owner string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := client.Dial(ctx, url, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, owner)
	require.NoError(t, err)
	defer sh.Release()
	m, err := sh.Grant(ctx, sharevat.ScopeRead|sharevat.ScopeAppend, 0, "hostile appender")
	require.NoError(t, err)
	return m.Token
}
