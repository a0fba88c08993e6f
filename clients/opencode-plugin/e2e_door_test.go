package opencodeplugin_test

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
)

// TestPluginAndDoorConvergeOnOneShare: stock opencode shares a session
// through the vat's opencode door (enterprise.url with the creation
// token) while the plugin, with the same creation token, shares it too;
// over three runs both write into ONE share (the door answers the
// plugin's create with the share it made for opencode), and after the
// flush command that share holds every item of `opencode export` at its
// final version with no op id twice.
func TestPluginAndDoorConvergeOnOneShare(t *testing.T) {
	node := needNode(t)
	m := opencodetest.NewModel(t,
		opencodetest.Text("First, through both."),
		opencodetest.Bash("echo both > both.txt"), opencodetest.Text("Wrote both."),
		opencodetest.Text("Third."))
	v := newVatWithPlugin(t, node, m, nil)
	token, err := os.ReadFile(v.creation)
	require.NoError(t, err)
	v.cfg.EnterpriseURL = v.base + "/opencode/" + strings.TrimSpace(string(token))
	v.root.WriteConfig(v.cfg)

	var id string
	for i, flags := range [][]string{{"--share"}, {"--continue"}, {"--continue"}} {
		res, sid := v.root.Prompt("converge please", flags...)
		require.NoError(t, res.Err, res.String())
		if i == 0 {
			id = sid
		}
		require.Equal(t, id, sid, "run %d continued the session", i+1)
	}
	t.Logf("flush: %s", v.flush(t))

	b, err := os.ReadFile(filepath.Join(v.outboxDir(), id, "share.json"))
	require.NoError(t, err)
	var plugin struct{ ShareID, Link string }
	require.NoError(t, json.Unmarshal(b, &plugin))
	resp, err := http.Post(v.cfg.EnterpriseURL+"/api/share", "application/json", strings.NewReader(`{"sessionID":"`+id+`"}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var door struct{ ID, URL string }
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&door))
	require.Equal(t, door.ID, plugin.ShareID, "the plugin and stock opencode use one share")
	require.Equal(t, door.URL, plugin.Link)

	out, _, err := v.compare(t, id)
	require.NoError(t, err, "the share both wrote lacks items of opencode export: %s", out)
	t.Logf("door and plugin in one share: %s", strings.TrimSpace(out))
}
