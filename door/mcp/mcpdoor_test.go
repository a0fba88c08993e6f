package mcp_test

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/client"
)

type ackT struct {
	Head       uint64 `json:"head"`
	Applied    int    `json:"applied"`
	Duplicates int    `json:"duplicates"`
	Rejected   int    `json:"rejected"`
	Results    []struct {
		OpID   string `json:"opId"`
		Status string `json:"status"`
		Reason string `json:"reason"`
	} `json:"results"`
}

type readT struct {
	Ops []struct {
		Cursor uint64         `json:"cursor"`
		OpID   string         `json:"opId"`
		Body   map[string]any `json:"body"`
	} `json:"ops"`
	Head       uint64 `json:"head"`
	NextCursor uint64 `json:"nextCursor"`
	More       bool   `json:"more"`
}

var twoOps = map[string]any{"ops": []any{
	map[string]any{"opId": "m1", "kind": "message", "key": "msg1", "body": map[string]any{"text": "hello", "n": 42}},
	map[string]any{"kind": "event", "body": map[string]any{"type": "ping"}},
}}

// TestDelegationOverHTTP walks the story on /mcp: the owner
// appends (a retry answers duplicate), grants a read-only token, a second
// session reads with it and is refused an append, the owner revokes it
// and the second session's next call fails revoked.
func TestDelegationOverHTTP(t *testing.T) {
	d := startDoor(t)
	owner := d.session(t, d.vat.MustCreate(t, "delegation"))

	tools, err := owner.ListTools(ctxT(t), nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	assert.ElementsMatch(t, []string{"share_info", "read_ops", "follow_ops", "snapshot", "append_ops",
		"grant", "list_grants", "revoke", "fork"}, names)

	var ack ackT
	must(t, owner, "append_ops", twoOps, &ack)
	assert.Equal(t, 2, ack.Applied)
	assigned := ack.Results[1].OpID
	assert.True(t, strings.HasPrefix(assigned, "mcp-"), assigned)
	retry := map[string]any{"ops": []any{twoOps["ops"].([]any)[0], map[string]any{"opId": assigned, "kind": "event", "body": map[string]any{"type": "ping"}}}}
	must(t, owner, "append_ops", retry, &ack)
	assert.Equal(t, 2, ack.Duplicates, "a retry with the same op ids changes nothing")

	var minted struct {
		Token, GrantID, Scope string
	}
	must(t, owner, "grant", map[string]any{"scope": "read", "label": "reviewer"}, &minted)
	assert.Equal(t, "read", minted.Scope)

	reader := d.session(t, minted.Token)
	var page readT
	must(t, reader, "read_ops", map[string]any{"limit": 1}, &page)
	require.Len(t, page.Ops, 1)
	assert.Equal(t, "hello", page.Ops[0].Body["text"])
	assert.True(t, page.More)
	must(t, reader, "read_ops", map[string]any{"fromCursor": page.NextCursor}, &page)
	require.Len(t, page.Ops, 1)
	assert.False(t, page.More)
	_, err = reader.CallTool(ctxT(t), &mcp.CallToolParams{Name: "append_ops", Arguments: twoOps})
	require.ErrorContains(t, err, `unknown tool "append_ops"`, "a reader has no append_ops")

	var grants struct {
		Grants []map[string]any `json:"grants"`
	}
	must(t, owner, "list_grants", nil, &grants)
	require.Len(t, grants.Grants, 2)
	assert.NotContains(t, mustJSON(t, grants), minted.Token)

	must(t, owner, "revoke", map[string]any{"grantId": minted.GrantID}, nil)
	_, err = reader.CallTool(ctxT(t), &mcp.CallToolParams{Name: "read_ops"})
	require.ErrorContains(t, err, "Unauthorized", "a revoked token's next request is refused at the gate")
	assert.NotContains(t, err.Error(), minted.Token)
	must(t, owner, "share_info", nil, nil) // the server keeps serving
}

// TestStdioSource runs the tools on a Redeemer over /rpc, as `sharevat
// mcp` does: follow_ops answers an op appended while it waits, and fork
// answers a new share whose owner token works.
func TestStdioSource(t *testing.T) {
	d := startDoor(t)
	r := client.NewRedeemer(d.vat.URL, d.vat.MustCreate(t, "stdio"), nil)
	t.Cleanup(r.Close)
	cs := stdioSession(t, r)

	done := make(chan readT, 1)
	go func() {
		var page readT
		res, err := cs.CallTool(ctxT(t), &mcp.CallToolParams{Name: "follow_ops", Arguments: map[string]any{"waitSeconds": 60}})
		if err == nil && !res.IsError {
			page.Head = 1
			page.Ops = append(page.Ops, struct {
				Cursor uint64         `json:"cursor"`
				OpID   string         `json:"opId"`
				Body   map[string]any `json:"body"`
			}{OpID: res.StructuredContent.(map[string]any)["ops"].([]any)[0].(map[string]any)["opId"].(string)})
		}
		done <- page
	}()
	var ack ackT
	must(t, cs, "append_ops", twoOps, &ack)
	got := <-done
	require.Len(t, got.Ops, 1, "follow_ops answers the first push")
	assert.Equal(t, "m1", got.Ops[0].OpID)

	var fork struct {
		ShareID string `json:"shareId"`
		At      uint64 `json:"at"`
		Owner   struct {
			Token string `json:"token"`
		} `json:"owner"`
	}
	must(t, cs, "fork", map[string]any{"title": "branch"}, &fork)
	assert.Equal(t, ack.Head, fork.At)
	child := d.session(t, fork.Owner.Token)
	var page readT
	must(t, child, "read_ops", nil, &page)
	assert.Len(t, page.Ops, 2)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, jsonEncode(&b, v))
	return b.String()
}
