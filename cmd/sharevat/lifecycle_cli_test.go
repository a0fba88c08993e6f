package main_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/servertest"
)

// lifecycle is the whole server in-process (internal/servertest, on
// bbolt or PostgreSQL) with one share, and the environments to run the
// CLI (in-process too: the subject is the commands, not the binary)
// against it as its owner and as the admin.
type lifecycle struct {
	t            *testing.T
	srv          *servertest.Server
	owner, admin []string // environments
	token        string   // the share's owner token
	id           string   // the share's id
}

func newLifecycle(t *testing.T, on storeKind, title string) *lifecycle {
	srv := on.startInProcess(t)
	l := &lifecycle{t: t, srv: srv}
	base := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + t.TempDir()}
	l.admin = append(base, "SHAREVAT_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token"))
	out, stderr, code := cliIn(t, "", l.admin, "create", "--title", title, "--json")
	require.Equal(t, 0, code, stderr)
	var c struct {
		ShareID string `json:"share_id"`
		Token   string `json:"token"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &c))
	l.token, l.id = c.Token, c.ShareID
	l.owner = append(base, "SHAREVAT_TOKEN="+c.Token)
	return l
}

// as returns the environment for token.
func (l *lifecycle) as(token string) []string {
	return append(l.owner[:2:2], "SHAREVAT_TOKEN="+token)
}

// run runs the CLI and requires exit code want; it returns stdout.
func (l *lifecycle) run(env []string, stdin string, want int, args ...string) (string, string) {
	l.t.Helper()
	out, stderr, code := cliIn(l.t, stdin, env, args...)
	require.Equal(l.t, want, code, "sharevat %s: stdout %q stderr %q", strings.Join(args, " "), out, stderr)
	return out, stderr
}

func events(prefix string, n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"op_id":"%s%d","kind":"message","key":"k%d","body":{"n":%d}}`+"\n", prefix, i, i%3, i)
	}
	return b.String()
}

func opIDsOf(t *testing.T, jsonl string) []string {
	t.Helper()
	var ids []string
	for _, line := range strings.Split(strings.TrimSpace(jsonl), "\n") {
		if line == "" {
			continue
		}
		var e struct {
			OpID string `json:"op_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &e), line)
		ids = append(ids, e.OpID)
	}
	return ids
}

// TestCLIForkAndChildren: `fork --at 3` prints the fork's owner token
// alone on stdout and a note on stderr; the fork's log and snapshot are
// the parent's at cursor 3; later appends stay apart; `children` and
// `list --parent` list it; past the head exits 1 with invalid.
func TestCLIForkAndChildren(t *testing.T) { onEachStore(t, testCLIForkAndChildren) }

func testCLIForkAndChildren(t *testing.T, on storeKind) {
	l := newLifecycle(t, on, "parent")
	l.run(l.owner, events("p", 5), 0, "append")

	out, stderr := l.run(l.owner, "", 0, "fork", "--at", "3", "--title", "the fork")
	fork := strings.TrimSpace(out)
	assert.Regexp(t, `^svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43}$`, fork, "only the token on stdout")
	assert.Contains(t, stderr, "forked share")
	assert.Contains(t, stderr, "at cursor 3")
	assert.NotContains(t, stderr, "svt1_", "no token in the note")

	parentLog, _ := l.run(l.owner, "", 0, "read")
	forkLog, _ := l.run(l.as(fork), "", 0, "read")
	pl := strings.Split(strings.TrimSpace(parentLog), "\n")
	assert.Equal(t, strings.Join(pl[:3], "\n"), strings.TrimSpace(forkLog), "the fork's log is the parent's first 3 ops, byte for byte")

	l.run(l.as(fork), events("f", 1), 0, "append")
	l.run(l.owner, events("q", 1), 0, "append")
	forkLog, _ = l.run(l.as(fork), "", 0, "read")
	parentLog, _ = l.run(l.owner, "", 0, "read")
	assert.Equal(t, []string{"p1", "p2", "p3", "f1"}, opIDsOf(t, forkLog))
	assert.Equal(t, []string{"p1", "p2", "p3", "p4", "p5", "q1"}, opIDsOf(t, parentLog))

	out, _ = l.run(l.owner, "", 0, "children", "--json")
	var kids []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &kids))
	require.Len(t, kids, 1)
	assert.Equal(t, "the fork", kids[0]["title"])
	assert.Equal(t, float64(3), kids[0]["fork_cursor"])
	assert.Equal(t, float64(4), kids[0]["head"])
	out, _ = l.run(l.owner, "", 0, "children")
	assert.Regexp(t, `(?m)^ID\s+TITLE\s+STATUS\s+FORKED-AT\s+HEAD\s+CREATED$`, out)

	out, _ = l.run(l.admin, "", 0, "list", "--parent", l.id, "--json")
	var listed []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &listed))
	require.Len(t, listed, 1)
	assert.Equal(t, l.id, listed[0]["parent_id"])
	assert.NotContains(t, out, fork[len(fork)-20:], "list prints no token")

	_, stderr = l.run(l.owner, "", 1, "fork", "--at", "99")
	assert.Contains(t, stderr, "invalid")
	_, stderr = l.run(l.owner, "", 2, "fork")
	assert.Contains(t, stderr, "--at")
}

// TestCLIDeleteEndsLiveTail: `sharevat delete` cuts a live `sharevat
// tail` of a delegate (exit 3, revoked); without a terminal it needs
// --yes (exit 2); a read-only token may not delete (exit 3); afterwards
// the owner token is refused (exit 3), and list shows the share only
// with --deleted.
func TestCLIDeleteEndsLiveTail(t *testing.T) { onEachStore(t, testCLIDeleteEndsLiveTail) }

func testCLIDeleteEndsLiveTail(t *testing.T, on storeKind) {
	l := newLifecycle(t, on, "doomed")
	l.run(l.owner, events("d", 3), 0, "append")
	reader, _ := l.run(l.owner, "", 0, "grant", "--scope", "read")
	reader = strings.TrimSpace(reader)

	tl := startTail(t, l.srv.URL, reader)
	tl.waitLines(t, 3)
	_, stderr := l.run(l.as(reader), "", 3, "delete", "--yes")
	assert.Contains(t, stderr, "permission")
	_, stderr = l.run(l.owner, "", 2, "delete")
	assert.Contains(t, stderr, "--yes")

	out, _ := l.run(l.owner, "", 0, "delete", "--yes")
	assert.Contains(t, out, "deleted share "+l.id)
	assert.Equal(t, 3, tl.exitCode(t), "the live tail ends as revoked")
	assert.Contains(t, tl.stderr.String(), "revoked")
	assert.Len(t, tl.all(), 3)

	l.run(l.owner, "", 3, "read")
	out, _ = l.run(l.admin, "", 0, "list")
	assert.NotContains(t, out, l.id)
	out, _ = l.run(l.admin, "", 0, "list", "--deleted")
	assert.Regexp(t, l.id+`\s+doomed\s+deleted\s`, out)
}

// TestCLIListFiltersAndPages: `list` follows the server's pages (more
// shares than one page of 100), filters by project, status and parent,
// and stops at --limit; bad filters are usage errors.
func TestCLIListFiltersAndPages(t *testing.T) { onEachStore(t, testCLIListFiltersAndPages) }

func testCLIListFiltersAndPages(t *testing.T, on storeKind) {
	l := newLifecycle(t, on, "first")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := client.Dial(ctx, l.srv.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	admin, err := conn.RedeemAdmin(ctx, l.srv.Admin)
	require.NoError(t, err)
	for i := range 104 {
		proj, title := fmt.Sprintf("p%d", i%4), fmt.Sprintf("s%d", i)
		sh, _, err := admin.CreateShare(ctx, sharevat.MetaPatch{Title: &title, ProjectID: &proj})
		require.NoError(t, err)
		sh.Release()
	}
	l.run(l.owner, "", 0, "status", "--set", "busy")

	count := func(args ...string) int {
		out, _ := l.run(l.admin, "", 0, append([]string{"list", "--json"}, args...)...)
		var shares []map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &shares))
		return len(shares)
	}
	assert.Equal(t, 105, count(), "every share, over two pages")
	assert.Equal(t, 26, count("--project", "p1"))
	assert.Equal(t, 1, count("--status", "busy"))
	assert.Equal(t, 7, count("--limit", "7"))
	assert.Equal(t, 0, count("--parent", l.id))
	out, _ := l.run(l.admin, "", 0, "list", "--status", "busy")
	assert.Regexp(t, `(?m)^`+l.id+`\s+first\s+busy\s+0\s`, out, "newest update first, and the table as before")
	_, stderr := l.run(l.admin, "", 2, "list", "--status", "sleepy")
	assert.Contains(t, stderr, "--status")
	l.run(l.admin, "", 2, "list", "--parent", "not-an-id")
	l.run(l.admin, "", 2, "list", "--limit", "-1")
}

// TestCLIStatus: `status` shows the share's status and since when,
// `--set` changes it (admin right), `--all` with the admin token lists
// every share's; a share token with --all exits 3 with the admin-token
// hint.
func TestCLIStatus(t *testing.T) { onEachStore(t, testCLIStatus) }

func testCLIStatus(t *testing.T, on storeKind) {
	l := newLifecycle(t, on, "working")
	out, _ := l.run(l.owner, "", 0, "status")
	assert.Equal(t, "share "+l.id+" is idle since its creation\n", out)
	out, _ = l.run(l.owner, "", 0, "status", "--set", "busy")
	assert.Regexp(t, `^share `+l.id+` is busy since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`, out)
	out, _ = l.run(l.owner, "", 0, "status", "--json")
	var st map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &st))
	assert.Equal(t, "busy", st["status"])
	assert.NotNil(t, st["status_at"])

	reader, _ := l.run(l.owner, "", 0, "grant", "--scope", "read")
	_, stderr := l.run(l.as(strings.TrimSpace(reader)), "", 3, "status", "--set", "idle")
	assert.Contains(t, stderr, "needs admin")
	l.run(l.owner, "", 2, "status", "--set", "sleepy")
	l.run(l.owner, "", 2, "status", "--set", "idle", "--all")

	out, _ = l.run(l.admin, "", 0, "status", "--all")
	assert.Regexp(t, `(?m)^ID\s+STATUS\s+SINCE\s+TITLE$`, out)
	assert.Regexp(t, `(?m)^`+l.id+`\s+busy\s+\S+\s+working$`, out)
	_, stderr = l.run(l.owner, "", 3, "status", "--all")
	assert.Contains(t, stderr, "admin token")
}

// TestCLICompactRetentionPrivacy: `compact --before N` says the earliest
// cursor; a read from before it exits 1 naming it; a re-sent compacted op
// is a duplicate at its original cursor; `retention` sets, shows and
// turns off the retention, and the server compacts in the background
// (its log says so); `privacy` shows and sets the policy; each checks
// its command line (exit 2) and rights (exit 3).
func TestCLICompactRetentionPrivacy(t *testing.T) { onEachStore(t, testCLICompactRetentionPrivacy) }

func testCLICompactRetentionPrivacy(t *testing.T, on storeKind) {
	l := newLifecycle(t, on, "long")
	l.run(l.owner, events("c", 6), 0, "append")
	out, _ := l.run(l.owner, "", 0, "compact", "--before", "4")
	assert.Equal(t, "compacted share "+l.id+"; the earliest readable cursor is 4\n", out)
	_, stderr := l.run(l.owner, "", 1, "read", "--from", "0")
	assert.Contains(t, stderr, "compacted")
	assert.Contains(t, stderr, "cursor 4")
	out, _ = l.run(l.owner, "", 0, "read", "--from", "3")
	assert.Equal(t, []string{"c4", "c5", "c6"}, opIDsOf(t, out))
	out, _ = l.run(l.owner, `{"op_id":"c1","kind":"message","key":"k1","body":{"n":1}}`+"\n", 0, "append", "--json")
	assert.Contains(t, out, `"duplicates":1`, "a compacted op id is still known")
	l.run(l.owner, "", 2, "compact")

	out, _ = l.run(l.owner, "", 0, "retention")
	assert.Equal(t, "retention of share "+l.id+": off (every op is kept)\n", out)
	out, _ = l.run(l.owner, "", 0, "retention", "--keep-ops", "2")
	assert.Equal(t, "retention of share "+l.id+": keep the last 2 ops\n", out)
	require.True(t, l.srv.Log.WaitFor("retention compacted a share", time.Minute), "the server compacts in the background:\n%s", l.srv.Log)
	_, stderr = l.run(l.owner, "", 1, "read", "--from", "3")
	assert.Contains(t, stderr, "cursor 5", "only the last 2 ops are left")
	out, _ = l.run(l.owner, "", 0, "retention", "--keep-for", "720h", "--json")
	assert.JSONEq(t, fmt.Sprintf(`{"share_id":%q,"keep_ops":0,"keep_for_seconds":2592000}`, l.id), out)
	out, _ = l.run(l.owner, "", 0, "retention", "--off")
	assert.Contains(t, out, "off")
	l.run(l.owner, "", 2, "retention", "--off", "--keep-ops", "3")
	l.run(l.owner, "", 2, "retention", "--keep-ops", "0")

	out, _ = l.run(l.owner, "", 0, "privacy")
	assert.True(t, strings.HasPrefix(out, "privacy of share "+l.id+": redact ("), out)
	out, _ = l.run(l.owner, "", 0, "privacy", "--set", "reject", "--json")
	assert.JSONEq(t, fmt.Sprintf(`{"share_id":%q,"privacy":"reject"}`, l.id), out)
	out, _ = l.run(l.owner, "", 0, "retention")
	assert.Contains(t, out, "off", "setting the privacy keeps the retention")
	l.run(l.owner, "", 2, "privacy", "--set", "sometimes")
	reader, _ := l.run(l.owner, "", 0, "grant", "--scope", "read")
	out, _ = l.run(l.as(strings.TrimSpace(reader)), "", 0, "privacy")
	assert.Contains(t, out, "reject", "showing needs read only")
	l.run(l.as(strings.TrimSpace(reader)), "", 3, "privacy", "--set", "off")
	l.run(l.as(strings.TrimSpace(reader)), "", 3, "compact", "--before", "5")
}
