package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
)

// TestCLISaysWhatToDo runs the real binary through a newcomer's usual
// mistakes and checks each answer says what to do: the admin token where
// a share token is needed, create with no token, a pretty-printed op, an
// op the server would refuse (caught before anything is stored), --ttl in
// days and weeks, the tail help's timeout, and grant --link's note.
func TestCLISaysWhatToDo(t *testing.T) {
	srv := servertest.Start(t, servertest.Options{})
	adminFile := filepath.Join(srv.Data, "admin.token")
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + state}
	owner := createShareIn(t, srv)
	ownerEnv := append(env, "SHAREVAT_TOKEN="+owner)

	t.Run("admin token for a share command", func(t *testing.T) {
		raw, err := os.ReadFile(adminFile)
		require.NoError(t, err)
		admin := strings.TrimSpace(string(raw))
		// Wherever the admin token comes from (a file of any name, --token
		// or SHAREVAT_TOKEN), the vat says it is the admin token.
		other := filepath.Join(t.TempDir(), "my.token")
		require.NoError(t, os.WriteFile(other, raw, 0o600))
		for name, run := range map[string]func() (string, int){
			"admin.token": func() (string, int) { _, e, c := cliIn(t, "", env, "read", "--token-file", adminFile); return e, c },
			"other file":  func() (string, int) { _, e, c := cliIn(t, "", env, "read", "--token-file", other); return e, c },
			"--token":     func() (string, int) { _, e, c := cliIn(t, "", env, "read", "--token", admin); return e, c },
			"SHAREVAT_TOKEN": func() (string, int) {
				_, e, c := cliIn(t, "", append(env, "SHAREVAT_TOKEN="+admin), "read")
				return e, c
			},
		} {
			stderr, code := run()
			assert.Equal(t, 3, code, "%s: %s", name, stderr)
			assert.Contains(t, stderr, "this is the server's admin token, not a share token", name)
			assert.NotContains(t, stderr, admin[30:], "%s: the token is never quoted", name)
		}
	})

	t.Run("create with no token", func(t *testing.T) {
		_, stderr, code := cliIn(t, "", env, "create")
		assert.Equal(t, 2, code, stderr)
		assert.Contains(t, stderr, "admin.token")
		assert.Contains(t, stderr, "--token-file")
	})

	t.Run("pretty-printed op", func(t *testing.T) {
		_, stderr, code := cliIn(t, "{\n  \"kind\": \"event\",\n  \"body\": {}\n}\n", ownerEnv, "append")
		assert.Equal(t, 2, code, stderr)
		assert.Contains(t, stderr, "JSON Lines, one whole JSON object per line")
	})

	t.Run("ops the server would refuse are not stored", func(t *testing.T) {
		for in, want := range map[string]string{
			`{"op_id":"t1","kind":"mesage","key":"m","body":{}}`: `line 1: unknown kind "mesage" (the kinds are session, message, part, session_diff, model and event)`,
			`{"op_id":"t2","kind":"message","body":{}}`:          `line 1: kind "message" needs a key`,
			`{"op_id":"t3","kind":"event","key":"k","body":{}}`:  `line 1: kind "event" takes no key and no delete`,
			`{"op_id":"t4","kind":"event"}`:                      `line 1: an op of kind "event" needs a body`,
		} {
			_, stderr, code := cliIn(t, in+"\n", ownerEnv, "append")
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, want)
		}
		out, stderr, code := cliIn(t, "", ownerEnv, "outbox", "list", "--json")
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, out, `"t1"`)
		out, stderr, code = cliIn(t, "", ownerEnv, "read")
		require.Equal(t, 0, code, stderr)
		assert.Empty(t, strings.TrimSpace(out), "nothing was sent")
	})

	t.Run("ttl in days and weeks", func(t *testing.T) {
		for ttl, want := range map[string]time.Duration{"1d": 24 * time.Hour, "2w": 14 * 24 * time.Hour, "1d12h": 36 * time.Hour} {
			out, stderr, code := cliIn(t, "", ownerEnv, "grant", "--scope", "read", "--ttl", ttl, "--json")
			require.Equal(t, 0, code, stderr)
			var g struct {
				ExpiresAt time.Time `json:"expires_at"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &g), out)
			assert.WithinDuration(t, time.Now().Add(want), g.ExpiresAt, time.Minute, ttl)
		}
		_, stderr, code := cliIn(t, "", ownerEnv, "grant", "--scope", "read", "--ttl", "3x")
		assert.Equal(t, 2, code, stderr)
		assert.Contains(t, stderr, "units: s, m, h, d, w")
	})

	t.Run("tail never times out by default", func(t *testing.T) {
		out, _, code := cliIn(t, "", env, "tail", "--help")
		require.Equal(t, 0, code)
		line := lineWith(out, "--timeout duration")
		assert.Contains(t, line, "default: never")
		assert.NotContains(t, line, "30s")
	})

	t.Run("grant --link note", func(t *testing.T) {
		_, stderr, code := cliIn(t, "", ownerEnv, "grant", "--scope", "read", "--link")
		require.Equal(t, 0, code, stderr)
		assert.NotContains(t, stderr, `\n`)
		assert.True(t, strings.HasSuffix(stderr, "session\n"), "%q", stderr)
	})
}

// lineWith returns the first line of s that contains sub, or "".
func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
