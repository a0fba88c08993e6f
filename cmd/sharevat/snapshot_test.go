package main_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSnapshotPages: `sharevat snapshot` follows the state page by page:
// a state over the 8 MiB answer limit (which Reader.snapshot refuses)
// prints whole, in (kind, key) order or, with --newest, newest first.
func TestSnapshotPages(t *testing.T) {
	srv := startServer(t, t.TempDir())
	base := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + t.TempDir()}
	out, stderr, code := cli(t, "", append(base, "SHAREVAT_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token")), "create", "--title", "big")
	require.Equal(t, 0, code, stderr)
	env := append(base, "SHAREVAT_TOKEN="+firstLine(out))

	const parts, size = 12, 900 << 10 // 10.8 MB of state
	pad := strings.Repeat("x", size)
	for batch := range 3 {
		var ops strings.Builder
		for i := range parts / 3 {
			n := batch*parts/3 + i
			fmt.Fprintf(&ops, `{"op_id":"p%02d","kind":"part","key":"prt_%02d","body":{"text":"%s"}}`+"\n", n, n, pad)
		}
		_, stderr, code = cli(t, ops.String(), env, "append")
		require.Equal(t, 0, code, stderr)
	}
	for _, tc := range []struct {
		args  []string
		first string
	}{{nil, "prt_00"}, {[]string{"--newest"}, "prt_11"}} {
		out, stderr, code = cli(t, "", env, append([]string{"snapshot"}, tc.args...)...)
		require.Equal(t, 0, code, "snapshot %v: %s", tc.args, stderr)
		var snap struct {
			Cursor   int
			Entities []struct{ Key string }
		}
		require.NoError(t, json.Unmarshal([]byte(out), &snap), "one JSON document")
		assert.Equal(t, parts, snap.Cursor)
		require.Len(t, snap.Entities, parts, "every entity once")
		assert.Equal(t, tc.first, snap.Entities[0].Key, "order of %v", tc.args)
	}
}
