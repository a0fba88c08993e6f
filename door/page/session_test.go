package page_test

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// The page is shown a realistic session: the opencode export that `sharevat
// import`'s tests use, mapped onto the standard kinds the way import maps
// it (exportfile/opencode.go).
const opencodeExport = "../../cmd/sharevat/testdata/opencode-export.json"

// The injection payload the page must show as text.
const payload = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=1"> and **markdown** stays text`

// opencodeOps maps the export onto ops: session, model, message, part,
// session_diff and a todo.updated event.
func opencodeOps(tb testing.TB) (ops []sharevat.Op, sessionID string) {
	tb.Helper()
	b, err := os.ReadFile(opencodeExport)
	require.NoError(tb, err)
	var doc struct {
		Info     map[string]any `json:"info"`
		Messages []struct {
			Info  map[string]any   `json:"info"`
			Parts []map[string]any `json:"parts"`
		} `json:"messages"`
		Todos []any `json:"todos"`
	}
	require.NoError(tb, json.Unmarshal(b, &doc))
	sessionID = doc.Info["id"].(string)
	add := func(kind, key string, body any) {
		raw, err := json.Marshal(body)
		require.NoError(tb, err)
		ops = append(ops, sharevat.Op{OpID: fmt.Sprintf("oc:%d", len(ops)), Kind: kind, Key: key, Body: raw})
	}
	add(sharevat.KindSession, sessionID, doc.Info)
	add(sharevat.KindModel, "anthropic/claude-sonnet-4-5", map[string]string{"providerID": "anthropic", "modelID": "claude-sonnet-4-5"})
	for _, m := range doc.Messages {
		add(sharevat.KindMessage, m.Info["id"].(string), m.Info)
		for _, p := range m.Parts {
			add(sharevat.KindPart, p["id"].(string), p)
		}
	}
	add(sharevat.KindSessionDiff, sessionID, doc.Info["summary"].(map[string]any)["diffs"])
	add(sharevat.KindEvent, "", map[string]any{"type": "todo.updated", "properties": map[string]any{"sessionID": sessionID, "todos": doc.Todos}})
	return ops, sessionID
}

// message returns the ops of one message with one text part, created
// at ms (Unix milliseconds).
func message(sessionID, msgID, partID, role, text string, ms int64) []sharevat.Op {
	info, _ := json.Marshal(map[string]any{"id": msgID, "sessionID": sessionID, "role": role, "time": map[string]any{"created": ms}})
	part, _ := json.Marshal(map[string]any{"id": partID, "sessionID": sessionID, "messageID": msgID, "type": "text", "text": text})
	return []sharevat.Op{
		{OpID: "op:" + msgID, Kind: sharevat.KindMessage, Key: msgID, Body: info},
		{OpID: "op:" + partID, Kind: sharevat.KindPart, Key: partID, Body: part},
	}
}
