package mcp_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

func jsonEncode(w io.Writer, v any) error { return json.NewEncoder(w).Encode(v) }

// TestBadInput: wrong types, missing fields, out-of-range values, an
// unknown tool and a bad token are each a clear error, and the session
// keeps serving.
func TestBadInput(t *testing.T) {
	d := startDoor(t)
	cs := d.session(t, d.vat.MustCreate(t, "bad"))
	for _, c := range []struct {
		tool string
		args any
		want string
	}{
		{"read_ops", map[string]any{"fromCursor": "ten"}, "fromCursor"},
		{"read_ops", map[string]any{"limit": 100000}, "limit: maximum: 100000/1 is greater than 500"},
		{"append_ops", map[string]any{}, "ops"},
		{"append_ops", map[string]any{"ops": nil}, "ops"},
		{"append_ops", map[string]any{"ops": []any{}}, "ops: minItems: array length 0 is less than 1"},
		{"append_ops", map[string]any{"ops": []any{map[string]any{"kind": "nonsense", "key": "k"}}}, "kind: enum: nonsense does not equal any of"},
		{"append_ops", map[string]any{"ops": []any{map[string]any{"key": "k"}}}, "kind"},
		{"append_ops", map[string]any{"ops": "all of them"}, "ops"},
		{"grant", map[string]any{"scope": "everything"}, "invalid: scope: "},
		{"grant", map[string]any{"scope": "read", "ttlSeconds": -5}, "ttlSeconds: minimum: -5/1 is less than 0"},
		{"revoke", map[string]any{"grantId": "nope"}, "notFound: "},
		{"follow_ops", map[string]any{"waitSeconds": 3600}, "waitSeconds: maximum: 3600/1 is greater than 60"},
		{"fork", map[string]any{"atCursor": 99}, "invalid: "},
	} {
		msg := call(t, cs, c.tool, c.args, nil)
		assert.NotNil(t, sharevat.ParseError(msg), "a tool error is <code>: <message>: %q", msg)
		assert.Contains(t, msg, c.want, "%s %v", c.tool, c.args)
	}
	var ack ackT
	must(t, cs, "append_ops", map[string]any{"ops": []any{map[string]any{"opId": "x", "kind": "event", "key": "k"}}}, &ack)
	assert.Equal(t, "invalid", ack.Results[0].Reason, "the vat rejects the op, per op (an event has no key)")

	_, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "drop_database"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "drop_database")

	status, msg := initialize(t, d.url, "svt1_notatoken")
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, "unauthorized: invalid or expired token\n", msg)
	must(t, cs, "share_info", nil, nil)
}

// TestHugeRequestRefused: a request over the byte limit is refused
// before it is parsed, and the server keeps serving.
func TestHugeRequestRefused(t *testing.T) {
	d := startDoor(t)
	tok := d.vat.MustCreate(t, "huge")
	cs := d.session(t, tok)
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"append_ops","arguments":{"ops":[{"kind":"event","body":"` +
		strings.Repeat("x", 128<<10) + `"}]}}}`
	req, err := http.NewRequest(http.MethodPost, d.url, bytes.NewBufferString(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	must(t, cs, "share_info", nil, nil)
}

// TestSessionBoundToToken: a request of a session that carries another
// bearer token than the session began with is refused, so a session id
// alone lends no authority.
func TestSessionBoundToToken(t *testing.T) {
	d := startDoor(t)
	cs := d.session(t, d.vat.MustCreate(t, "bound"))
	other := d.vat.MustCreate(t, "other")
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"share_info","arguments":{}}}`
	req, err := http.NewRequest(http.MethodPost, d.url, bytes.NewBufferString(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+other)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", cs.ID())
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "%s", b)
	assert.NotContains(t, string(b), other)
	must(t, cs, "share_info", nil, nil)
}

func jsonDecode(r io.Reader, v any) error { return json.NewDecoder(r).Decode(v) }
