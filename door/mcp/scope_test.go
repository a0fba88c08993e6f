package mcp_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/client"
)

// toolNames lists the tools a session sees, sorted.
func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(ctxT(t), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// TestToolsFollowTheTokenScope: a session lists only the tools its
// token's rights may use, over HTTP and over stdio, and a call of a tool
// it does not list is an unknown tool, as if it were not there.
// Invariant: a reader sees share_info, read_ops, follow_ops, snapshot
// (not append_ops, grant, list_grants, revoke, fork); read,append adds
// append_ops; the owner sees all nine.
func TestToolsFollowTheTokenScope(t *testing.T) {
	d := startDoor(t)
	owner := d.vat.MustCreate(t, "scoped")
	mint := func(scope string) string {
		var m struct{ Token string }
		must(t, d.session(t, owner), "grant", map[string]any{"scope": scope}, &m)
		return m.Token
	}
	reads := []string{"follow_ops", "read_ops", "share_info", "snapshot"}
	reader, appender := mint("read"), mint("read,append")
	assert.Equal(t, reads, toolNames(t, d.session(t, reader)))
	assert.Equal(t, []string{"append_ops", "follow_ops", "fork", "read_ops", "share_info", "snapshot"}, toolNames(t, d.session(t, appender)),
		"fork needs read and append, as the vat asks")
	assert.Len(t, toolNames(t, d.session(t, owner)), 9)

	r := client.NewRedeemer(d.vat.URL, reader, nil)
	t.Cleanup(r.Close)
	stdio := stdioSession(t, r)
	assert.Equal(t, reads, toolNames(t, stdio), "over stdio too")
	for _, name := range []string{"append_ops", "grant", "revoke", "fork", "list_grants"} {
		_, err := stdio.CallTool(ctxT(t), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		require.Error(t, err, name)
		assert.Contains(t, err.Error(), `unknown tool "`+name+`"`)
	}
}

// TestToolAnnotations: every tool says whether it is read-only,
// destructive and idempotent, and that it reaches nothing outside the
// vat; every input schema refuses null for a list and bounds what the
// vat bounds.
func TestToolAnnotations(t *testing.T) {
	d := startDoor(t)
	res, err := d.session(t, d.vat.MustCreate(t, "hints")).ListTools(ctxT(t), nil)
	require.NoError(t, err)
	want := map[string][3]bool{ // readOnly, destructive, idempotent
		"share_info": {true, false, true}, "read_ops": {true, false, true}, "follow_ops": {true, false, true},
		"snapshot": {true, false, true}, "list_grants": {true, false, true},
		"append_ops": {false, false, false}, "grant": {false, false, false}, "fork": {false, false, false},
		"revoke": {false, true, true},
	}
	require.Len(t, res.Tools, len(want))
	for _, tool := range res.Tools {
		a := tool.Annotations
		require.NotNil(t, a, tool.Name)
		require.NotNil(t, a.DestructiveHint, tool.Name)
		require.NotNil(t, a.OpenWorldHint, tool.Name)
		assert.Equal(t, want[tool.Name], [3]bool{a.ReadOnlyHint, *a.DestructiveHint, a.IdempotentHint}, tool.Name)
		assert.False(t, *a.OpenWorldHint, tool.Name)
		if tool.Name == "append_ops" {
			s := mustJSON(t, tool.InputSchema)
			for _, bound := range []string{`"maxItems":1000`, `"minItems":1`, `"enum":["session","message","part","session_diff","model","event"]`} {
				assert.Contains(t, s, bound)
			}
			assert.False(t, strings.Contains(s, `"null"`), "ops may not be null: %s", s)
		}
	}
}
