package main_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pendingOps returns n ops as `append` reads them.
func pendingOps(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"op_id":"p%d","kind":"event","body":{"n":%d}}`+"\n", i, i)
	}
	return b.String()
}

// TestFlushRefusesDamagedOutbox: 300 ops wait in the outbox (the server
// is down); the outbox file is then truncated to 0 bytes, or cut in half.
// flush and append refuse it with one line naming the file (exit 1, no
// panic), and leave it as it is; they never report "nothing pending".
func TestFlushRefusesDamagedOutbox(t *testing.T) {
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	srv.Kill()
	for name, cut := range map[string]func(int64) int64{
		"empty":       func(int64) int64 { return 0 },
		"cut in half": func(n int64) int64 { return n / 2 },
	} {
		t.Run(name, func(t *testing.T) {
			state := t.TempDir()
			env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_TOKEN=" + owner, "SHAREVAT_STATE=" + state, obNoExitSleep}
			_, stderr, code := cli(t, pendingOps(300), env, "append", "--timeout", "300ms")
			require.Equal(t, 1, code, stderr)
			require.Contains(t, stderr, "300 op(s) stay pending")
			path := obOutboxPath(t, state, owner)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(path, cut(fi.Size())))
			before, err := os.ReadFile(path)
			require.NoError(t, err)

			for _, args := range [][]string{{"flush"}, {"append"}} {
				out, stderr, code := cli(t, pendingOps(1), env, args...)
				assert.Equal(t, 1, code, "%s: stdout %s stderr %s", args[0], out, stderr)
				assert.NotContains(t, out, "nothing pending", args[0])
				line := strings.TrimSpace(stderr)
				assert.NotContains(t, line, "\n", "%s: one line", args[0])
				assert.NotContains(t, line, "panic", args[0])
				assert.Contains(t, line, "the outbox file "+path+" is ", args[0])
				assert.Contains(t, line, "restore it from a backup", args[0])
			}
			after, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, before, after, "the outbox file is kept untouched")
		})
	}
}
