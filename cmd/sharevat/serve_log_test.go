package main_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeLogFormatJSON: --log-format json writes every log record as a
// JSON object; a bad format exits 2.
func TestServeLogFormatJSON(t *testing.T) {
	srv := startServer(t, t.TempDir(), "--log-format", "json")
	srv.Stop(t)
	records := 0
	for _, line := range strings.Split(strings.TrimSpace(srv.Log.String()), "\n") {
		if strings.HasPrefix(line, "sharevat: ") {
			continue // the plain "serving on URL" line for people and scripts
		}
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "not JSON: %q", line)
		assert.Contains(t, rec, "level")
		assert.Contains(t, rec, "msg")
		records++
	}
	assert.Greater(t, records, 1)
	assert.Contains(t, srv.Log.String(), `"msg":"serving"`)

	_, stderr, code := cli(t, "", nil, "serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(), "--log-format", "xml")
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "--log-format")
}

// TestServeConnLogsAtDebug: a connection's open and close lines are
// debug records: absent at --log-level info, present at debug.
func TestServeConnLogsAtDebug(t *testing.T) {
	for _, level := range []string{"info", "debug"} {
		t.Run(level, func(t *testing.T) {
			t.Parallel() // each its own server; info waits the 5 s out
			srv := startServer(t, t.TempDir(), "--log-level", level)
			_, stderr, code := cli(t, "", []string{"SHAREVAT_URL=" + srv.URL,
				"SHAREVAT_TOKEN_FILE=" + filepath.Join(srv.Data, "admin.token")}, "create", "--title", "x")
			require.Equal(t, 0, code, stderr)
			closed := srv.Log.WaitFor("connection closed", 5*time.Second)
			srv.Stop(t)
			log := srv.Log.String()
			if level == "debug" {
				assert.True(t, closed, log)
				assert.Contains(t, log, `level=DEBUG msg="sharevat/rpc: connection opened"`)
				assert.Contains(t, log, `level=DEBUG msg="sharevat/rpc: connection closed"`)
			} else {
				assert.NotContains(t, log, "connection opened", "at info")
				assert.NotContains(t, log, "connection closed", "at info")
			}
		})
	}
}
