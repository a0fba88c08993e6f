package main_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// The outbox of TestAppendLeavesASmallOutbox keeps sizeKeepDone done
// results (the CLI's default is 10,000), so a run of twice that many ops
// prunes half of them, as 20,000 ops did at the default.
const (
	sizeKeepDone = 500
	sizeOps      = 2 * sizeKeepDone
	// sizeBound is the most the outbox file may weigh after the run: the
	// sizeKeepDone done results it keeps (a 256 KiB file) and little
	// else. Measured: 256 KiB; with prune keeping every result 512 KiB;
	// without the compaction 8 MiB.
	sizeBound = 384 << 10
)

// sizeOpsJSONL returns n event ops with 2 KiB bodies as JSON Lines, op
// ids prefix0, prefix1, …: the outbox compacts a file only once it
// wastes at least 1 MiB, which 1,000 ops of a few bytes never do.
func sizeOpsJSONL(prefix string, n int) string {
	pad := strings.Repeat("x", 2<<10)
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"op_id":"%s%d","kind":"event","body":{"n":%d,"pad":%q}}`+"\n", prefix, i, i, pad)
	}
	return b.String()
}

// TestAppendLeavesASmallOutbox: one append of twice as many ops as the
// outbox keeps done results for, sent in 40 batches and all acked,
// leaves an outbox file of bounded size: acked records do not stay in
// it, their bodies neither, the oldest results are pruned, and the pages
// they held are given back (the file is compacted once the flush has
// emptied it). The CLI runs in-process, its outbox keeping 500 results
// instead of 10,000 (the binary is not the subject; 20,000 ops through
// it took ~30 s).
func TestAppendLeavesASmallOutbox(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + state}
	batch := fmt.Sprint(sizeOps / 40)
	out, stderr, code := cliInTuned(t, keepDone(sizeKeepDone), sizeOpsJSONL("size", sizeOps), env, "append", "--batch", batch, "--timeout", "5m")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, fmt.Sprintf("applied %d, duplicate 0, rejected 0; head is %d\n", sizeOps, sizeOps), out)

	fi, err := os.Stat(obOutboxPath(t, state, owner))
	require.NoError(t, err)
	t.Logf("outbox file after %d acked ops, %d results kept: %d bytes", sizeOps, sizeKeepDone, fi.Size())
	assert.LessOrEqual(t, fi.Size(), int64(sizeBound))
}
