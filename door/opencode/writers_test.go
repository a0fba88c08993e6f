package opencode_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// TestDoorSeesOtherWritersOfTheShare: the opencode plugin appends to a
// session's share directly (over the vat's RPC, with the secret), beside
// stock opencode's syncs through the door. Invariant: an item version
// another writer stored after the door's last sync counts as what the
// share holds, so an older version of it that opencode sends late stores
// nothing and the share keeps the newer one.
func TestDoorSeesOtherWritersOfTheShare(t *testing.T) {
	d := startOpen(t)
	s := create(t, d.base, "ses_w")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, s, oldSession).status) // the door has loaded the share

	ack := appendAsPlugin(t, d, s, newSession, newText)
	require.Equal(t, 2, ack.Applied)

	r := syncRaw(t, d.base, s, oldSession+","+oldText) // opencode's older versions, late
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	_, got := items(t, d, s)
	require.Len(t, got, 2)
	for _, it := range got {
		switch it.Type {
		case "session":
			require.JSONEq(t, string(dataOf(t, newSession)), string(it.Data), "the door stored opencode's older session over the plugin's newer one")
		case "part":
			require.JSONEq(t, string(dataOf(t, newText)), string(it.Data), "the door stored opencode's older part over the plugin's newer one")
		}
	}
}

// TestOlderVersionFromAnotherWriterIsNotShown: two writers of one
// session's share — stock opencode through the door, and the plugin of
// another opencode process over the vat's RPC — deliver the versions of
// its items out of order: the door stores the newer versions, then the
// other writer appends the older ones (which the door never saw, so it
// could not refuse them). Invariant: GET …/data shows the newer version
// of every item (the vat's state keeps the newest, apply.Supersedes),
// and the log keeps both.
func TestOlderVersionFromAnotherWriterIsNotShown(t *testing.T) {
	d := startOpen(t)
	s := create(t, d.base, "ses_late")
	r := syncRaw(t, d.base, s, newSession+","+newTool+","+newText)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)

	ack := appendAsPlugin(t, d, s, oldSession, oldTool, oldText)
	require.Equal(t, 3, ack.Applied, "the log keeps every version")

	_, got := items(t, d, s)
	require.Len(t, got, 3)
	want := map[string]string{}
	for _, it := range []string{newSession, newTool, newText} {
		want[string(dataOf(t, it))] = ""
	}
	for _, it := range got {
		_, ok := want[string(it.Data)]
		require.True(t, ok, "an older version another writer appended after the newer one is shown: %s %s", it.Type, it.Data)
	}
}

// appendAsPlugin appends the items its as the opencode plugin does: over
// the vat's RPC with the share's secret, one op per item, mapped as the
// door maps them (kind = type; key = id, or messageID/id for a part).
func appendAsPlugin(t *testing.T, d *door, s share, its ...string) sharevat.Ack {
	t.Helper()
	ctx := context.Background()
	conn, err := client.Dial(ctx, d.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	sh, err := conn.Redeem(ctx, s.Secret)
	require.NoError(t, err)
	defer sh.Release()
	_, access, err := sh.Fetch(ctx)
	require.NoError(t, err)
	app, err := sh.Appender(ctx)
	require.NoError(t, err)
	b := &sharevat.Batch{BatchID: "plugin-" + s.ID, Epoch: access.Epoch}
	for i, it := range its {
		var x struct {
			Type string `json:"type"`
			Data struct {
				ID        string `json:"id"`
				MessageID string `json:"messageID"`
			} `json:"data"`
		}
		require.NoError(t, jsonUnmarshal([]byte(it), &x))
		key := x.Data.ID
		if x.Type == "part" {
			key = x.Data.MessageID + "/" + key
		}
		b.Ops = append(b.Ops, sharevat.Op{OpID: fmt.Sprintf("plugin-%s-%d", s.ID, i), Seq: uint32(i), Kind: x.Type, Key: key, Body: dataOf(t, it)})
	}
	ack, err := app.Append(ctx, b)
	require.NoError(t, err)
	return ack
}
