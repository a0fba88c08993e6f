package opencodeplugin_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
)

// vatWithPlugin is a real vat and an opencode project (of the package's
// shared installation) that loads the plugin from this directory, with
// an outbox directory of its own (and shares with opencode's built-in
// client to rec, for contrast, when rec is not nil).
type vatWithPlugin struct {
	url  string // the vat's ws://…/rpc
	base string // http://127.0.0.1:port
	root *opencodetest.Root
	cfg  opencodetest.Config
	node string
	// creation is the file holding the creation token the plugin uses.
	creation string
	// outboxes is the plugin's outbox directory (SHAREVAT_OPENCODE_DIR).
	outboxes string
}

// useModel points the root's opencode.json at m (for the next run).
func (v *vatWithPlugin) useModel(m *opencodetest.Model) {
	v.cfg.Model = m
	v.root.WriteConfig(v.cfg)
}

// newVatWithPlugin makes the project, sharing into the package's shared
// vat.
func newVatWithPlugin(t *testing.T, node string, m *opencodetest.Model, rec *opencodetest.Recorder) *vatWithPlugin {
	t.Helper()
	vat, creation := sharedVat(t)
	return newProjectWithPlugin(t, node, m, rec, vat.URL, creation)
}

// newProjectWithPlugin makes the project, sharing into the vat at url
// with the creation token in the file creation.
func newProjectWithPlugin(t *testing.T, node string, m *opencodetest.Model, rec *opencodetest.Recorder, url, creation string) *vatWithPlugin {
	t.Helper()
	plugin, err := filepath.Abs(filepath.Join("src", "index.js"))
	require.NoError(t, err)
	cfg := opencodetest.Config{Model: m, Plugin: []string{"file://" + plugin}}
	if rec != nil {
		cfg.EnterpriseURL = rec.URL
	}
	root := sharedRoot(t).NewProject(t, cfg)
	base := httpBase(url)
	outboxes := filepath.Join(t.TempDir(), "outboxes")
	root.Env = append(root.Env, "SHAREVAT_URL="+base, "SHAREVAT_TOKEN_FILE="+creation, "SHAREVAT_OPENCODE_DIR="+outboxes)
	return &vatWithPlugin{url: url, base: base, root: root, cfg: cfg, node: node, creation: creation, outboxes: outboxes}
}

// outboxDir is the plugin's outbox directory.
func (v *vatWithPlugin) outboxDir() string { return v.outboxes }

// flush runs the plugin's flush command in the root's environment.
func (v *vatWithPlugin) flush(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(v.node, filepath.Join("bin", "flush.js"))
	cmd.Env = v.root.Env
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "flush: %s", out)
	return string(out)
}

// compare runs e2e/compare.mjs on the session's export and its share,
// and returns the export too (one opencode start fewer for a test that
// looks at it).
func (v *vatWithPlugin) compare(t *testing.T, sessionID string) (string, opencodetest.Export, error) {
	t.Helper()
	exp, res, err := v.root.Export(sessionID)
	require.NoError(t, err, res.String())
	b, err := os.ReadFile(filepath.Join(v.outboxDir(), sessionID, "share.json"))
	require.NoError(t, err)
	var share struct{ Token string }
	require.NoError(t, json.Unmarshal(b, &share))
	cmd := exec.Command(v.node, filepath.Join("e2e", "compare.mjs"), v.base, share.Token)
	cmd.Stdin = strings.NewReader(res.Stdout)
	out, err := cmd.CombinedOutput()
	return string(out), exp, err
}

// stockLosses counts what opencode's built-in share client left the
// recorder without (missing) or at an older version than the export
// (stale).
func stockLosses(t *testing.T, e opencodetest.Export, items map[string]opencodetest.Item) (missing, stale int) {
	t.Helper()
	want := map[string]any{"session": e.Info}
	for _, m := range e.Messages {
		want["message/"+fmt.Sprint(m.Info["id"])] = m.Info
		for _, p := range m.Parts {
			want["part/"+fmt.Sprint(m.Info["id"])+"/"+fmt.Sprint(p["id"])] = p
		}
	}
	for k, w := range want {
		it, ok := items[k]
		if !ok {
			missing++
			continue
		}
		var got any
		require.NoError(t, json.NewDecoder(bytes.NewReader(it.Data)).Decode(&got))
		wb, _ := json.Marshal(w)
		var wv any
		require.NoError(t, json.Unmarshal(wb, &wv))
		if !reflect.DeepEqual(got, wv) {
			stale++
		}
	}
	return missing, stale
}

// TestPluginSharesEveryItemOfFiveRuns: five `opencode run`s in a row
// (the first with --share, then --continue) with the plugin loaded and
// opencode's own share going to a recorder; after the flush command the
// vat holds every item of `opencode export` at its final version, field
// by field, with no op id twice, while the built-in client's losses are
// counted for contrast.
func TestPluginSharesEveryItemOfFiveRuns(t *testing.T) {
	node := needNode(t)
	rec := opencodetest.NewRecorder(t)
	m := opencodetest.NewModel(t,
		opencodetest.Bash("echo one > one.txt"), opencodetest.Text("Wrote one."),
		opencodetest.Text("Second answer."),
		opencodetest.Bash("echo three > three.txt"), opencodetest.Text("Wrote three."),
		opencodetest.Text("Fourth answer."), opencodetest.Text("Fifth answer."))
	v := newVatWithPlugin(t, node, m, rec)
	var id string
	for i := 0; i < 5; i++ {
		flags := []string{"--continue"}
		if i == 0 {
			flags = []string{"--share"}
		}
		res, sid := v.root.Prompt(fmt.Sprintf("turn %d please", i+1), flags...)
		require.NoError(t, res.Err, res.String())
		if i == 0 {
			id = sid
			require.Contains(t, res.Stderr, "sharevat: session "+id+" is shared at "+v.base+"/share/", res.String())
		}
		require.Equal(t, id, sid, "run %d continued the session", i+1)
	}
	t.Logf("flush: %s", v.flush(t))
	out, exp, err := v.compare(t, id)
	require.NoError(t, err, "the vat lacks items of opencode export: %s", out)
	t.Logf("plugin: %s", strings.TrimSpace(out))

	missing, stale := stockLosses(t, exp, rec.Items("shr0001"))
	t.Logf("built-in share over the same 5 runs: %d of %d items missing, %d at an older version",
		missing, len(opencodetest.Keys(exp)), stale)
}
