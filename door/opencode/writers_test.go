package opencode_test

import (
	"context"
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
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "plugin-1", Epoch: access.Epoch, Ops: []sharevat.Op{
		{OpID: "plugin-session", Kind: "session", Key: "ses_o", Body: dataOf(t, newSession)},
		{OpID: "plugin-text", Kind: "part", Key: "msg_1/prt_x", Body: dataOf(t, newText), Seq: 1},
	}})
	require.NoError(t, err)
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
