package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/internal/vattest"
)

// oneLineErr asserts stderr is one `sharevat: ...` line and returns it.
func oneLineErr(t *testing.T, stderr string) string {
	t.Helper()
	line := strings.TrimSpace(stderr)
	assert.Equal(t, 1, strings.Count(line, "\n")+1, "one line: %q", stderr)
	assert.True(t, strings.HasPrefix(line, "sharevat: "), line)
	return line
}

// TestServerURLSaysTheFix: a server URL that cannot name the vat — no
// scheme, another scheme, a query — exits 2 before anything is dialled,
// with the URL to use. Nothing listens at these URLs: before, each was a
// dial failure (exit 1) that did not say what was wrong. It holds for a
// command that dials (read, create) and for append, which stores its ops
// before it dials. (http://, and ws:// without /rpc, name the vat:
// TestServerURLEveryForm.)
func TestServerURLSaysTheFix(t *testing.T) {
	token := vattest.WrongSecret(someToken(t)) // well-formed, never accepted: one for every case
	for _, tc := range []struct{ url, want string }{
		{"127.0.0.1:1", `the vat URL "127.0.0.1:1" has no scheme: use http://127.0.0.1:1`},
		{"ftp://127.0.0.1:1/rpc", "the scheme must be http, https, ws or wss; use http://127.0.0.1:1"},
		{"ws://127.0.0.1:1/rpc?x", "has a query or fragment: use http://127.0.0.1:1"},
	} {
		for _, cmd := range []string{"read", "create", "append"} {
			t.Run(tc.url+"/"+cmd, func(t *testing.T) {
				env := []string{"SHAREVAT_URL=" + tc.url, "SHAREVAT_TOKEN=" + token}
				_, stderr, code := cliIn(t, `{"kind":"event","body":{}}`+"\n", env, cmd)
				assert.Equal(t, 2, code, stderr)
				line := oneLineErr(t, stderr)
				assert.Contains(t, line, tc.want)
			})
		}
	}
	_, stderr, code := cliIn(t, "", []string{"SHAREVAT_TOKEN=x"}, "read", "--server", "ftp://127.0.0.1:1/rpc")
	assert.Equal(t, 2, code, "--server is checked like SHAREVAT_URL: %s", stderr)
}

// someToken returns a well-formed share token minted by a real server
// (in-process).
func someToken(t *testing.T) string {
	t.Helper()
	_, owner := startInProcess(t, servertest.Options{})
	return owner
}

// TestOpErrorsSayWhatIsWrong: append's JSON Lines errors name the line
// and say in plain words what is wrong, never a Go type name; unknown
// fields are reported; blank lines (also CRLF and whitespace-only ones)
// are skipped. All exit 2 before a token or server is needed.
func TestOpErrorsSayWhatIsWrong(t *testing.T) {
	env := []string{"SHAREVAT_URL=ws://127.0.0.1:1/rpc", "SHAREVAT_TOKEN=x"}
	ok := `{"kind":"event","body":{}}` + "\n"
	for _, tc := range []struct{ in, want string }{
		{ok + "\n" + `[{"kind":"event"}]` + "\n", "line 3: an op must be a JSON object, got an array"},
		{ok + `{"kind":"event","bdy":{}}` + "\n", `line 2: unknown field "bdy"`},
		{`{"kind":"event","op_id":7}` + "\n", `line 1: field "op_id" must be a string, got number`},
		{`{"kind":"event","expected_cursor":-1}` + "\n", `line 1: field "expected_cursor" must be a whole number`},
		{`{"kind":"event","depends_on":"a"}` + "\n", `line 1: field "depends_on" must be an array of op id strings, got string`},
		{`{"kind":"event"} {"kind":"event"}` + "\n", "line 1: more after the op's closing brace"},
		{"not json\n", "line 1: not JSON"},
		{`"hello"` + "\n", "line 1: an op must be a JSON object, got a string"},
	} {
		_, stderr, code := cliIn(t, tc.in, env, "append")
		assert.Equal(t, 2, code, stderr)
		line := oneLineErr(t, stderr)
		assert.Contains(t, line, tc.want)
		for _, goName := range []string{"Go value", "Go struct", "main.jsonOp", "uint64", "[]string"} {
			assert.NotContains(t, line, goName)
		}
	}
	// Blank lines are skipped: the ops after them get through to the
	// (unreachable) server, so the failure is a dial failure, not a parse one.
	srv, owner := startInProcess(t, servertest.Options{})
	base := []string{"SHAREVAT_URL=" + srv.URL, "SHAREVAT_STATE=" + t.TempDir()}
	in := "\r\n" + ok + "   \n\t\r\n" + strings.ReplaceAll(ok, "\n", "\r\n") + "\n\n"
	out, stderr, code := cliIn(t, in, append(base, "SHAREVAT_TOKEN="+owner), "append")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "applied 2")
}

// TestMissingOpsFileIsAUsageError: `append --file` naming a file that
// is not there exits 2 with the path; before it exited 1 with
// the bare open error.
func TestMissingOpsFileIsAUsageError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "ops.jsonl")
	_, stderr, code := cliIn(t, "", []string{"SHAREVAT_TOKEN=x"}, "append", "--file", missing)
	assert.Equal(t, 2, code, stderr)
	line := oneLineErr(t, stderr)
	assert.Contains(t, line, "--file")
	assert.Contains(t, line, missing)
	assert.Contains(t, line, "no such file")
	_, err := os.Stat(missing)
	assert.True(t, os.IsNotExist(err))
}
