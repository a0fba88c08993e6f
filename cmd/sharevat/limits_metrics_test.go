package main_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/sharevat/sharevat/internal/hostile"
)

// TestLimitMetrics: a limit that closes a connection is counted in
// /metrics by name, and the server's memory budget and its use are
// exported.
func TestLimitMetrics(t *testing.T) {
	s := startServer(t, t.TempDir(), "--memory-budget", "512MiB")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := hostile.CapTableBomb(ctx, s.URL, 100)
	t.Logf("%s", r)
	body := fetchMetrics(t, s)
	assert.Contains(t, body, `sharevat_limit_hits_total{limit="caps_per_message"} 1`)
	assert.Contains(t, body, "sharevat_memory_budget_bytes 5.36870912e+08")
	assert.Contains(t, body, "sharevat_memory_budget_used_bytes ")
}
