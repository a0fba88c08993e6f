package main

import (
	"context"
	"time"

	"github.com/sharevat/sharevat/internal/hostile"
)

// mcpVectors are the MCP door's vectors (/mcp; issue 32), each named
// mcp-…; not in the default set: name them with -vectors.
// mcp-junk-appends is bug 3 as filed: 16 clients posting ~7 MiB
// append_ops with bearer "garbage".
var mcpVectors = []vector{
	{name: "mcp-junk-init", run: func(ctx context.Context, url string, _ hostile.Fixture, _ time.Duration) *hostile.Report {
		return hostile.MCPJunkInitialize(ctx, url, 2048, 16)
	}},
	{name: "mcp-junk-appends", run: func(ctx context.Context, url string, _ hostile.Fixture, cap time.Duration) *hostile.Report {
		ctx, cancel := context.WithTimeout(ctx, cap/2)
		defer cancel()
		return hostile.MCPAppendFlood(ctx, url, "garbage", 16, 7<<20)
	}},
	{name: "mcp-valid-appends", run: func(ctx context.Context, url string, fx hostile.Fixture, cap time.Duration) *hostile.Report {
		ctx, cancel := context.WithTimeout(ctx, cap/2)
		defer cancel()
		return hostile.MCPAppendFlood(ctx, url, fx.Owner, 16, 7<<20)
	}},
	{name: "mcp-withheld", run: func(ctx context.Context, url string, _ hostile.Fixture, cap time.Duration) *hostile.Report {
		return hostile.MCPWithheldBodies(ctx, url, "garbage", 100, 7<<20, cap/2)
	}},
}

func init() { vectors = append(vectors, mcpVectors...) }
