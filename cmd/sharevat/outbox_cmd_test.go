package main_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"

	"github.com/sharevat/sharevat/internal/servertest"
)

// outboxListing is one outbox of `outbox list --json`.
type outboxListing struct {
	Path, ShareID, GrantID, LastError string
	Pending, Failed, Done             int
	Size                              int64
}

func listOutboxes(t *testing.T, env []string) []outboxListing {
	t.Helper()
	out, stderr, code := cli(t, "", env, "outbox", "list", "--json")
	require.Equal(t, 0, code, stderr)
	var raw []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &raw), out)
	var got []outboxListing
	for _, r := range raw {
		got = append(got, outboxListing{
			Path: r["path"].(string), ShareID: r["share_id"].(string), GrantID: r["grant_id"].(string),
			Pending: int(r["pending"].(float64)), Failed: int(r["failed"].(float64)), Done: int(r["done"].(float64)),
			Size: int64(r["size"].(float64)), LastError: str(r["last_error"]),
		})
	}
	return got
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// TestOutboxCommands: outbox list shows every outbox of the
// state directory with its share, grant, pending and failed ops; show
// lists the ops; discard needs --yes without a terminal and drops them;
// gc removes the empty outbox of a revoked token and keeps the rest.
func TestOutboxCommands(t *testing.T) {
	srv, owner := startInProcess(t, servertest.Options{})
	reader := i9Grant(t, srv.URL, owner, sharevat.ScopeRead)
	state := t.TempDir()
	env := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + state, obNoExitSleep}
	ownerEnv, readerEnv := append(env, "SHAREVAT_TOKEN="+owner), append(env, "SHAREVAT_TOKEN="+reader)

	_, stderr, code := cliIn(t, obThreeOps, ownerEnv, "append")
	require.Equal(t, 0, code, stderr)
	_, _, code = cliIn(t, obThreeOps, readerEnv, "append")
	require.Equal(t, 3, code, "a read token cannot append: its ops stay pending")

	got := listOutboxes(t, env)
	require.Len(t, got, 2)
	byPath := map[string]outboxListing{}
	for _, o := range got {
		byPath[o.Path] = o
	}
	readerBox := byPath[obOutboxPath(t, state, reader)]
	ownerBox := byPath[obOutboxPath(t, state, owner)]
	assert.Equal(t, 3, readerBox.Pending)
	assert.Contains(t, readerBox.LastError, "permissionDenied")
	assert.Equal(t, 0, ownerBox.Pending)
	assert.Equal(t, 3, ownerBox.Done)
	assert.NotEmpty(t, ownerBox.ShareID)
	assert.Equal(t, ownerBox.ShareID, readerBox.ShareID)
	assert.Positive(t, ownerBox.Size)

	table, _, code := cliIn(t, "", env, "outbox", "list")
	require.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^SHARE\s+GRANT\s+PENDING\s+FAILED\s+SIZE\s+LAST ERROR$`, table)
	assert.NotContains(t, table, owner[30:], "no token secret is printed")

	shown, stderr, code := cliIn(t, "", readerEnv, "outbox", "show")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, shown, "3 pending, 0 failed")
	assert.Len(t, regexp.MustCompile(`(?m)^\S+\s+pending\s`).FindAllString(shown, -1), 3, shown)
	assert.Regexp(t, `(?m)^a\s+pending`, shown)

	_, stderr, code = cliIn(t, "", readerEnv, "outbox", "discard", "--pending")
	assert.Equal(t, 2, code, "no terminal and no --yes: nothing is discarded")
	assert.Contains(t, stderr, "pass --yes")
	_, stderr, code = cliIn(t, "", readerEnv, "outbox", "discard", "--pending", "--op", "a", "--yes")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "discarded 1 pending op(s)")

	// gc keeps outboxes with pending ops, and those of live tokens.
	out, stderr, code := cliIn(t, "", env, "outbox", "gc")
	require.Equal(t, 0, code, stderr)
	assert.Empty(t, strings.TrimSpace(out))
	assert.Contains(t, stderr, "removed 0 of 2")

	_, _, code = cliIn(t, "", env, "outbox", "discard", "--pending", "--yes", "--outbox", readerBox.Path)
	require.Equal(t, 0, code)
	out, _, code = cliIn(t, "", env, "outbox", "gc", "--dry-run")
	require.Equal(t, 0, code)
	assert.Empty(t, strings.TrimSpace(out), "a permission error is not a dead token")

	// Revoke the reader's grant; its next flush is refused for good.
	_, stderr, code = cliIn(t, "", ownerEnv, "revoke", "--grant", obGrantID(t, reader))
	require.Equal(t, 0, code, stderr)
	_, _, code = cliIn(t, "", readerEnv, "flush")
	require.Equal(t, 0, code, "nothing pending: nothing sent")
	_, _, code = cliIn(t, obThreeOps, readerEnv, "append")
	require.Equal(t, 3, code)
	_, _, code = cliIn(t, "", readerEnv, "outbox", "discard", "--pending", "--yes")
	require.Equal(t, 0, code)

	out, stderr, code = cliIn(t, "", env, "outbox", "gc")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, readerBox.Path, strings.TrimSpace(out))
	assert.NoFileExists(t, readerBox.Path)
	assert.FileExists(t, ownerBox.Path)

	out, _, code = cliIn(t, "", env, "outbox", "gc", "--empty")
	require.Equal(t, 0, code)
	assert.Equal(t, ownerBox.Path, strings.TrimSpace(out))
	entries, err := os.ReadDir(state)
	require.NoError(t, err)
	assert.Empty(t, entries)

	_, stderr, code = cliIn(t, "", env, "outbox", "show", "--grant", obGrantID(t, reader))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "no outbox at")
}

// obGrantID is the grant id of token.
func obGrantID(t *testing.T, token string) string {
	t.Helper()
	tok, err := sturdyref.Parse(token)
	require.NoError(t, err)
	return string(tok.GrantID)
}
