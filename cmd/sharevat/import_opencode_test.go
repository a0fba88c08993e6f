package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

const opencodeFixture = "testdata/opencode-export.json"

// TestImportOpencode: `import` detects an opencode session export and
// maps it onto the standard kinds — the session, each model when first
// used, each message followed by its parts, the session's diffs and its
// todos — keeping opencode's ids as keys and its JSON as the bodies. The
// share takes the session's title, project and directory. Importing the
// same file again is refused (already imported); --from opencode names
// the format; --into the first share appends nothing new.
func TestImportOpencode(t *testing.T) { onEachStore(t, testImportOpencode) }

func testImportOpencode(t *testing.T, on storeKind) {
	x := newXIEnv(t, on)
	token := x.importFile(opencodeFixture)
	got := readAll(t, x.srv.URL, token)

	const ses = "ses_3a9f0c1d2ffe7Hq2LmX9vKcRtB"
	want := []struct{ kind, key string }{
		{sharevat.KindSession, ses},
		{sharevat.KindModel, "anthropic/claude-sonnet-4-5"},
		{sharevat.KindMessage, "msg_c560f3e2e001VbN7w3QjZkPa1s"},
		{sharevat.KindPart, "prt_c560f3e2e002Yt4sRn8uWmLd0q"},
		{sharevat.KindPart, "prt_c560f3e2e003Hs9dKq2vXbNc7e"},
		{sharevat.KindMessage, "msg_c560f3e4a001Pq8zTj5mRwXe2u"},
		{sharevat.KindPart, "prt_c560f3e4b001Gh3kLp9sDxQa4r"},
		{sharevat.KindPart, "prt_c560f3e4b002Zx7cVb1nMaSd5t"},
		{sharevat.KindPart, "prt_c560f3e4b003Rt6yUi2oPlKj8w"},
		{sharevat.KindPart, "prt_c560f3e4b004Mn5bVc3xZaQs1e"},
		{sharevat.KindPart, "prt_c560f3e4b005Wq9eRt4yUiOp2a"},
		{sharevat.KindMessage, "msg_c560f3f71001Lk2jHg8fDsAq3z"},
		{sharevat.KindPart, "prt_c560f3f72001Bv6nMl0kJhGf4d"},
		{sharevat.KindPart, "prt_c560f3f72002Cx5zAs9dFgHj6k"},
		{sharevat.KindPart, "prt_c560f3f72003Dz4xSa8qWeRt7y"},
		{sharevat.KindModel, "openai/gpt-5"},
		{sharevat.KindMessage, "msg_c560f41a0001Ui7oPk3lMnBv8c"},
		{sharevat.KindPart, "prt_c560f41a0002Xc1vBn5mQwEr9t"},
		{sharevat.KindSessionDiff, ses},
		{sharevat.KindEvent, ""},
	}
	require.Len(t, got, len(want))
	for i, w := range want {
		assert.Equal(t, w.kind+" "+w.key, got[i].Kind+" "+got[i].Key, "op %d", i+1)
		assert.True(t, strings.HasPrefix(got[i].OpID, "opencode:"), "op id %q", got[i].OpID)
	}

	doc := readFixture(t)
	assert.JSONEq(t, string(doc.Info), string(got[0].Body), "the session op's body is the session info")
	assert.JSONEq(t, string(doc.Messages[1].Parts[2]), string(got[8].Body), "a tool part's body is the part")
	assert.JSONEq(t, `{"providerID":"openai","modelID":"gpt-5"}`, string(got[15].Body))
	var ev struct {
		Type       string
		Properties struct {
			SessionID string
			Todos     []map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(got[19].Body, &ev))
	assert.Equal(t, "todo.updated", ev.Type)
	assert.Equal(t, ses, ev.Properties.SessionID)
	assert.Len(t, ev.Properties.Todos, 2)
	var diffs []map[string]any
	require.NoError(t, json.Unmarshal(got[18].Body, &diffs))
	assert.Len(t, diffs, 2)

	info := shareInfo(t, x.srv.URL, token)
	assert.Equal(t, "Fix the login redirect loop", info.Meta.Title)
	assert.Equal(t, "/home/ana/src/webshop", info.Meta.Directory)
	assert.Equal(t, "b4e7a0c39d1f2e5a6b8c7d9e0f1a2b3c4d5e6f70", info.Meta.ProjectID)

	_, stderr, code := x.run("", append([]string{"import", "--file", opencodeFixture}, x.admin()...)...)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "already imported into share "+string(info.ID))

	_, stderr, code = x.run(token, "import", "--file", opencodeFixture, "--from", "opencode", "--into", token)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "applied 0, duplicate 0", "the import is complete: nothing is resent")

	second := x.importFile(opencodeFixture, "--new", "--title", "second copy")
	assert.Equal(t, "second copy", shareInfo(t, x.srv.URL, second).Meta.Title)
	assert.Len(t, readAll(t, x.srv.URL, second), len(want))
}

// TestImportOpencodeFormatSwitch: --from sharevat refuses an opencode
// export; a compacted (one-line) opencode export is detected too, and
// so is one read from stdin (--json: one object with the token).
func TestImportOpencodeFormatSwitch(t *testing.T) { onEachStore(t, testImportOpencodeFormatSwitch) }

func testImportOpencodeFormatSwitch(t *testing.T, on storeKind) {
	x := newXIEnv(t, on)
	_, stderr, code := x.run("", append([]string{"import", "--file", opencodeFixture, "--from", "sharevat"}, x.admin()...)...)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "not a sharevat export")

	raw, err := os.ReadFile(opencodeFixture)
	require.NoError(t, err)
	var one bytes.Buffer
	require.NoError(t, json.Compact(&one, raw))
	f := t.TempDir() + "/one-line.json"
	require.NoError(t, os.WriteFile(f, one.Bytes(), 0o600))
	token := x.importFile(f)
	assert.Len(t, readAll(t, x.srv.URL, token), 20)

	out, stderr, code := cli(t, string(raw), []string{"SHAREVAT_URL=" + x.srv.URL, "SHAREVAT_STATE=" + x.state},
		append([]string{"import", "--new", "--json"}, x.admin()...)...)
	require.Equal(t, 0, code, "import reads stdin: %s", stderr)
	var res struct {
		ShareID  string `json:"share_id"`
		Token    string `json:"token"`
		Complete bool   `json:"complete"`
		Applied  int    `json:"applied"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), "--json prints one object: %s", out)
	assert.True(t, res.Complete)
	assert.Equal(t, 20, res.Applied)
	assert.Len(t, readAll(t, x.srv.URL, res.Token), 20)
}

// ocFixture is the part of the fixture the test compares bodies with.
type ocFixture struct {
	Info     json.RawMessage
	Messages []struct {
		Info  json.RawMessage
		Parts []json.RawMessage
	}
}

func readFixture(t *testing.T) ocFixture {
	t.Helper()
	raw, err := os.ReadFile(opencodeFixture)
	require.NoError(t, err)
	var doc ocFixture
	require.NoError(t, json.Unmarshal(raw, &doc))
	return doc
}
