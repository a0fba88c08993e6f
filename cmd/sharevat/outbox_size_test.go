package main_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// i9SizeBound is the most the outbox file of TestAppendLeavesASmallOutbox
// may weigh: the done results it keeps (10,000) and little else.
const i9SizeBound = 6 << 20

// TestAppendLeavesASmallOutbox: one append of 20,000 ops, sent
// in batches of 500 and all acked, leaves an outbox file of bounded size:
// acked records do not stay in it, and the pages they held are given back
// (the file is compacted once the flush has emptied it).
func TestAppendLeavesASmallOutbox(t *testing.T) {
	const n = 20_000
	srv := startServer(t, t.TempDir())
	owner := createShare(t, srv)
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + state, obNoExitSleep}
	// 20,000 ops take ~14 s under -race alone, over 30 s (append's
	// default --timeout) on a loaded CI machine.
	out, stderr, code := cli(t, i9Ops("size", n), env, "append", "--batch", "500", "--timeout", "5m")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "applied 20000, duplicate 0, rejected 0; head is 20000\n", out)

	fi, err := os.Stat(obOutboxPath(t, state, owner))
	require.NoError(t, err)
	t.Logf("outbox file after %d acked ops: %d bytes", n, fi.Size())
	assert.LessOrEqual(t, fi.Size(), int64(i9SizeBound))
}
