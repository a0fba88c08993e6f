package main_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestAppendTimeoutBoundsOnlyTheSending: --timeout starts once the ops
// are stored, so a timeout too short for anything still stores every op
// and says how many stay pending and how to send them, and a flush then
// sends them. Before, a timeout that ran out while the outbox was being
// opened or written stored nothing and said only "context deadline
// exceeded".
func TestAppendTimeoutBoundsOnlyTheSending(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + t.TempDir()}

	out, stderr, code := cliIn(t, i9Ops("late", 3), env, "append", "--timeout", "1ns")
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, out)
	assert.NotContains(t, stderr, "sharevat: context deadline exceeded")
	for _, want := range []string{"timed out after --timeout 1ns", "3 op(s) stay pending", "sharevat flush"} {
		assert.Contains(t, stderr, want)
	}

	out, stderr, code = cliIn(t, "", env, "flush")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "applied 3")
}
