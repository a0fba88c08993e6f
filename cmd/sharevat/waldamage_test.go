package main_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeRefusesDamagedWAL reproduces a damaged log: a vat holding
// its appends in the write-ahead log (--wal-apply-every 1h), 2,000 ops
// appended through the CLI, SIGKILL, one byte flipped at half the size
// of the log's segment. `check --data` reports the damage (exit 1), and
// serve refuses to start with one line naming the segment and offset
// and saying how to recover. Following that advice, the vat starts with
// the ops before the damage and check is clean. On main check said "no
// problem found" and serve started with about half the acked ops gone.
func TestServeRefusesDamagedWAL(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data, "--wal-apply-every", "1h", "--wal-apply-bytes", "1GiB")
	owner := createShare(t, srv)
	var ops strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&ops, `{"op_id":"o%d","kind":"event","body":{"n":%d,"pad":"%s"}}`+"\n", i, i, strings.Repeat("x", 100))
	}
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner}
	_, stderr, code := cli(t, ops.String(), env, "append")
	require.Equal(t, 0, code, stderr)
	srv.Kill()

	seg := filepath.Join(data, "sharevat.db.wal", "0000000000000001.wal")
	b, err := os.ReadFile(seg)
	require.NoError(t, err)
	b[len(b)/2] ^= 0x01
	require.NoError(t, os.WriteFile(seg, b, 0o600))

	out, stderr, code := cli(t, "", nil, "check", "--data", data)
	assert.Equal(t, 1, code, "check finds the damage: %s %s", out, stderr)
	assert.Contains(t, out, seg+" is damaged at offset ")

	line := lastLine(serveRefused(t, data))
	t.Log(line)
	assert.True(t, strings.HasPrefix(line, "sharevat: the write-ahead log segment "+seg+" is damaged at offset "), line)
	assert.Contains(t, line, "this is not the torn tail a crash leaves")
	assert.Contains(t, line, "Restore the data directory from a backup")
	off := damagedOffset(t, line)
	assert.Contains(t, line, fmt.Sprintf("'truncate -s %d %s'", off, seg))
	after, err := os.ReadFile(seg)
	require.NoError(t, err)
	require.Equal(t, b, after, "a refused start changes nothing")

	require.NoError(t, os.Truncate(seg, off))
	srv = startServer(t, data)
	env[0] = "SHAREVAT_URL=" + srv.URL
	out, stderr, code = cli(t, "", env, "read", "--from", "0")
	require.Equal(t, 0, code, stderr)
	n := strings.Count(out, "\n")
	assert.Positive(t, n, "the ops before the damage are there")
	assert.Less(t, n, 2000, "the ops from the damage on were given up")
	srv.Stop(t)
	_, stderr, code = cli(t, "", nil, "check", "--data", data)
	assert.Equal(t, 0, code, stderr)
}

// damagedOffset is the offset a refusal line names.
func damagedOffset(t *testing.T, line string) int64 {
	t.Helper()
	_, rest, ok := strings.Cut(line, " is damaged at offset ")
	require.True(t, ok, line)
	var off int64
	_, err := fmt.Sscan(rest, &off)
	require.NoError(t, err, line)
	return off
}
