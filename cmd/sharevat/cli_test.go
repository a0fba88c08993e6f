package main_test

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWalkthrough runs the README's five-minute walk-through against a
// real server process: serve → create → append → read → snapshot, with
// the exit codes of docs/design.md §11.
func TestWalkthrough(t *testing.T) {
	srv := startServer(t, t.TempDir())
	base := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + t.TempDir()}
	out, stderr, code := cli(t, "", append(base, "SHAREVAT_TOKEN_FILE="+filepath.Join(srv.Data, "admin.token")), "create", "--title", "demo")
	require.Equal(t, 0, code, stderr)
	env := append(base, "SHAREVAT_TOKEN="+firstLine(out))

	ops := `{"op_id":"s1","kind":"session","key":"ses_1","body":{"title":"demo"}}
{"op_id":"m1","kind":"message","key":"msg_1","body":{"role":"user","text":"hello"}}
{"op_id":"e1","kind":"event","body":{"type":"idle"}}
`
	out, stderr, code = cli(t, ops, env, "append", "--json")
	require.Equal(t, 0, code, stderr)
	var ack struct{ Head, Applied, Duplicates, Rejected int }
	require.NoError(t, json.Unmarshal([]byte(out), &ack))
	assert.Equal(t, 3, ack.Applied)
	assert.Equal(t, 3, ack.Head)

	out, _, code = cli(t, ops, env, "append")
	assert.Equal(t, 0, code, "re-running with op ids is safe")
	assert.Contains(t, out, "duplicate 3")

	out, stderr, code = cli(t, `{"op_id":"bad","kind":"event","depends_on":["never-sent"],"body":{}}`+"\n", env, "append")
	assert.Equal(t, 4, code, "a rejected op exits 4: %s", stderr)
	assert.Contains(t, out, "bad rejected: missingDependency")

	_, stderr, code = cli(t, `{"kind":"message","key":"msg_1","delete":true}`+"\n", env, "append")
	require.Equal(t, 0, code, stderr)

	out, stderr, code = cli(t, "", env, "read", "--from", "1")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	var first map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &first))
	assert.Equal(t, "m1", first["op_id"])
	assert.Equal(t, float64(2), first["cursor"])
	for _, k := range []string{"cursor", "op_id", "batch_id", "kind", "key", "body", "at"} {
		assert.Contains(t, first, k)
	}

	out, stderr, code = cli(t, "", env, "snapshot")
	require.Equal(t, 0, code, stderr)
	var snap struct {
		Cursor   int
		Entities []struct{ Kind, Key string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &snap))
	assert.Equal(t, 4, snap.Cursor)
	require.Len(t, snap.Entities, 1, "msg_1 deleted; the event is not state")
	assert.Equal(t, "ses_1", snap.Entities[0].Key)
}

func TestExitCodes(t *testing.T) {
	srv := startServer(t, t.TempDir())
	env := []string{"SHAREVAT_URL=" + srv.URL}
	_, stderr, code := cli(t, "", append(env, "SHAREVAT_TOKEN=svt1_nope"), "read")
	assert.Equal(t, 3, code, "a bad token exits 3")
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(stderr), "\n")+1, "one clear line: %q", stderr)
	assert.NotContains(t, stderr, "svt1_nope", "the token is not echoed")

	_, _, code = cli(t, "", env, "read", "--limit", "-1")
	assert.Equal(t, 2, code, "bad flags exit 2")
	_, _, code = cli(t, "", env, "frobnicate")
	assert.Equal(t, 2, code, "unknown command exits 2")
	_, _, code = cli(t, "not json\n", append(env, "SHAREVAT_TOKEN=x"), "append")
	assert.Equal(t, 2, code, "unparsable input exits 2")
	_, stderr, code = cli(t, "", []string{"SHAREVAT_URL=ws://127.0.0.1:1/rpc", "SHAREVAT_TOKEN=" + wellFormedToken}, "read")
	assert.Equal(t, 1, code, "an unreachable server exits 1: %s", stderr)
}

func TestHealthz(t *testing.T) {
	srv := startServer(t, t.TempDir())
	url := "http" + strings.TrimSuffix(strings.TrimPrefix(srv.URL, "ws"), "/rpc") + "/healthz"
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// wellFormedToken parses as a token but names no grant: a server would
// refuse it; the client does not refuse it before dialling.
const wellFormedToken = "svt1_aaaaaaaaaaaaaaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
