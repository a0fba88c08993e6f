package main_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// i9Ops returns n event ops as JSON Lines, with op ids prefix0, prefix1, ….
func i9Ops(prefix string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"op_id":"%s%d","kind":"event","body":{"n":%d}}`+"\n", prefix, i, i)
	}
	return b.String()
}

// TestFlushCountsEveryAckedOp: an append of more ops than the
// outbox keeps done results for (10,000) is interrupted with all of them
// pending; flush then reports every op it sent as applied, none pending,
// and the next flush has nothing to do. The counts come from the acks, not
// from the results the outbox happens to keep.
func TestFlushCountsEveryAckedOp(t *testing.T) {
	const n = 12_000
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	srv.Kill()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + t.TempDir(), obNoExitSleep}
	_, stderr, code := cli(t, i9Ops("big", n), env, "append", "--timeout", "300ms")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, fmt.Sprintf("%d op(s) stay pending", n))

	srv = startServer(t, data)
	env = append(env, "SHAREVAT_URL="+srv.URL)
	out, stderr, code := cli(t, "", env, "flush", "--json")
	require.Equal(t, 0, code, stderr)
	var got struct{ Head, Applied, Duplicates, Rejected, Pending int }
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, n, got.Head)
	assert.Equal(t, n, got.Applied, "every acked op is counted")
	assert.Zero(t, got.Pending, "no acked op is counted as pending")

	out, stderr, code = cli(t, "", env, "flush")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, fmt.Sprintf("nothing pending; head is %d\n", n), out)
}
