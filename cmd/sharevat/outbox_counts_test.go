package main_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/servertest"
)

// i9Ops returns n event ops as JSON Lines, with op ids prefix0, prefix1, ….
func i9Ops(prefix string, n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"op_id":"%s%d","kind":"event","body":{"n":%d}}`+"\n", prefix, i, i)
	}
	return b.String()
}

// countsKeepDone is how many done results the outbox of
// TestFlushCountsEveryAckedOp keeps (the CLI's default is 10,000).
const countsKeepDone = 200

// TestFlushCountsEveryAckedOp: an append of more ops than the outbox
// keeps done results for (1.2 times as many, as 12,000 were at the
// default 10,000) is left with all of them pending (its server cannot
// be reached); flush then reports every op it sent as applied, none
// pending, and the next flush has nothing to do. The counts come from
// the acks, not from the results the outbox happens to keep. The CLI
// runs in-process with its outbox keeping 200 results (the binary is
// not the subject; 12,000 ops through it took ~10 s).
func TestFlushCountsEveryAckedOp(t *testing.T) {
	const n = countsKeepDone * 6 / 5
	srv, owner := startInProcess(t, servertest.Options{})
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=ws://127.0.0.1:1/rpc", "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + state}
	_, stderr, code := cliInTuned(t, keepDone(countsKeepDone), i9Ops("big", n), env, "append", "--timeout", "300ms")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, fmt.Sprintf("%d op(s) stay pending", n))

	env = append(env, "SHAREVAT_URL="+srv.URL)
	out, stderr, code := cliInTuned(t, keepDone(countsKeepDone), "", env, "flush", "--json")
	require.Equal(t, 0, code, stderr)
	var got struct{ Head, Applied, Duplicates, Rejected, Pending int }
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, n, got.Head)
	assert.Equal(t, n, got.Applied, "every acked op is counted")
	assert.Zero(t, got.Pending, "no acked op is counted as pending")
	assertKeptDone(t, obOutboxPath(t, state, owner), countsKeepDone)

	out, stderr, code = cliInTuned(t, keepDone(countsKeepDone), "", env, "flush")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, fmt.Sprintf("nothing pending; head is %d\n", n), out)
}

// assertKeptDone checks that the outbox at path keeps want done results:
// it pruned the others, so counts read back from it would miss them.
func assertKeptDone(t *testing.T, path string, want int) {
	t.Helper()
	ob, err := client.OpenOutbox(path, client.OutboxOptions{})
	require.NoError(t, err)
	defer ob.Close()
	st, err := ob.Status()
	require.NoError(t, err)
	require.Equal(t, want, st.Done, "done results the outbox kept")
}
