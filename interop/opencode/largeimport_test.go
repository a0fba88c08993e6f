package opencode_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
)

// largeImportEnv names the number of messages TestOpencodeImportsALargeShare
// adds to a real run's share (default 2,000; each with a 2.9 KB part).
const largeImportEnv = "SHAREVAT_LARGE_IMPORT"

// TestOpencodeImportsALargeShare: `opencode import` reads GET …/data,
// which the vat streams. Invariant: a real run's share grown by n more
// messages (a copy of its first message and text part each, 2.9 KB of
// text, synced with opencode's secret) is imported by the real opencode
// whole: the imported session has every message the vat holds.
func TestOpencodeImportsALargeShare(t *testing.T) {
	if testing.Short() {
		t.Skip("a long share")
	}
	t.Parallel()
	n := 2000
	if s := os.Getenv(largeImportEnv); s != "" {
		var err error
		n, err = strconv.Atoi(s)
		require.NoError(t, err)
	}
	v := startVat(t)
	m := opencodetest.NewModel(t, opencodetest.Text("First answer."))
	base := v.mint(t)
	r := opencodetest.NewRoot(t, opencodetest.Config{Model: m, EnterpriseURL: base})
	res, id := r.Prompt("a first question", "--share")
	require.NoError(t, res.Err, res.String())
	link := opencodetest.ShareURL(res.Stdout + res.Stderr)
	local, ok, err := r.Share(id)
	require.NoError(t, err)
	require.True(t, ok, "opencode keeps the share")
	_, items := data(t, link)
	msg, part := firstMessageAndText(t, items)
	for i := 0; i < n; i += 500 {
		syncCopies(t, base, local, msg, part, i, min(n, i+500))
	}
	_, items = data(t, link)
	want, wantParts := 0, 0
	for k := range items {
		switch {
		case strings.HasPrefix(k, "message/"):
			want++
		case strings.HasPrefix(k, "part/"):
			wantParts++
		}
	}
	require.GreaterOrEqual(t, want, n)

	r2 := opencodetest.NewRoot(t, opencodetest.Config{Model: m})
	res = r2.Import(link)
	require.NoError(t, res.Err, res.String())
	msgs, parts := importedCounts(t, r2, opencodetest.ImportedSession(res.Stdout))
	t.Logf("imported %d messages and %d parts of a share of %d items", msgs, parts, len(items))
	require.Equal(t, want, msgs, "the import holds every message the vat holds")
	require.Equal(t, wantParts, parts, "and every part")
}

// importedCounts counts the messages and parts of session in r's
// database (`opencode export` of thousands of messages comes out cut).
func importedCounts(t *testing.T, r *opencodetest.Root, session string) (msgs, parts int) {
	t.Helper()
	require.Regexp(t, `^ses_[A-Za-z0-9]+$`, session)
	res := r.Run("db", "--format", "json", "select (select count(*) from message where session_id = '"+session+"') as m, "+
		"(select count(*) from part where session_id = '"+session+"') as p")
	require.NoError(t, res.Err, res.String())
	var rows []struct{ M, P int }
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(res.Stdout)), &rows), res.String())
	require.Len(t, rows, 1)
	return rows[0].M, rows[0].P
}

// firstMessageAndText are the data of the share's first message and of
// a text part of it.
func firstMessageAndText(t *testing.T, items map[string]opencodetest.Item) (map[string]any, map[string]any) {
	t.Helper()
	var msg, part map[string]any
	for k, it := range items {
		if !strings.HasPrefix(k, "part/") {
			continue
		}
		var p map[string]any
		require.NoError(t, json.Unmarshal(it.Data, &p))
		if p["type"] == "text" {
			part = p
			require.NoError(t, json.Unmarshal(items["message/"+p["messageID"].(string)].Data, &msg))
			break
		}
	}
	require.NotNil(t, part, "the run's share has a text part")
	return msg, part
}

// syncCopies syncs copies i..j-1 of msg and part through base (the
// enterprise.url) as opencode would.
func syncCopies(t *testing.T, base string, s opencodetest.LocalShare, msg, part map[string]any, i, j int) {
	t.Helper()
	var data []map[string]any
	for k := i; k < j; k++ {
		mid := fmt.Sprintf("%s%08d", msg["id"], k)
		m := clone(msg, map[string]any{"id": mid})
		p := clone(part, map[string]any{"id": fmt.Sprintf("%s%08d", part["id"], k), "messageID": mid,
			"text": fmt.Sprintf("copy %d: %s", k, strings.Repeat("lorem ipsum ", 240))})
		data = append(data, map[string]any{"type": "message", "data": m}, map[string]any{"type": "part", "data": p})
	}
	items, err := json.Marshal(data)
	require.NoError(t, err)
	secret, err := json.Marshal(s.Secret)
	require.NoError(t, err)
	body := `{"secret":` + string(secret) + `,"data":` + string(items) + `}` // the secret first, as opencode sends it
	resp, err := http.Post(base+"/api/share/"+s.ID+"/sync", "application/json", strings.NewReader(body))
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
}

func clone(m map[string]any, set map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for k, v := range set {
		out[k] = v
	}
	return out
}
