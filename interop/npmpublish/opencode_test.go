package npmpublish_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// pluginName is how opencode.json names the plugin.
const pluginName = "@sharevat/opencode-plugin"

// TestOpencodeLoadsPluginByName: the real opencode, given only the
// plugin's package name and NPM_CONFIG_REGISTRY, installs the plugin
// from the registry (into $XDG_CACHE_HOME/opencode/packages/, with npm's
// installer: its package-lock.json records the registry's tarball) and
// shares two runs (a tool call, answers) into a real vat; the flush
// command of a global install (`npm install -g`) then finds nothing left
// or sends the rest, and the vat holds every item of `opencode export`
// at its final version, with no op id twice.
func TestOpencodeLoadsPluginByName(t *testing.T) {
	reg, node, npm := published(t)
	plugin := filepath.Join(clients, "opencode-plugin")
	compare, err := filepath.Abs(filepath.Join(plugin, "e2e", "compare.mjs"))
	require.NoError(t, err)
	flush := globalFlush(t, reg, npm)

	bin := server.Binary(t)
	srv := proctest.StartServe(t, bin)
	base := strings.Replace(strings.TrimSuffix(srv.URL, "/rpc"), "ws", "http", 1)
	outboxes := filepath.Join(t.TempDir(), "outboxes")
	settings := []string{"SHAREVAT_URL=" + base, "SHAREVAT_TOKEN_FILE=" + mintCreationToken(t, bin, srv), "SHAREVAT_OPENCODE_DIR=" + outboxes}

	m := opencodetest.NewModel(t,
		opencodetest.Bash("echo one > one.txt"), opencodetest.Text("Wrote one."),
		opencodetest.Text("Second answer."))
	root := opencodetest.NewRoot(t, opencodetest.Config{Model: m, Plugin: []string{pluginName}})
	root.Env = append(root.Env, append(settings, "NPM_CONFIG_REGISTRY="+reg.URL)...)
	res, id := root.Prompt("first please")
	require.NoError(t, res.Err, res.String())
	require.Contains(t, res.Stderr, "sharevat: session "+id+" is shared at "+base+"/share/",
		"opencode loaded the plugin by name: %s\nopencode's log:\n%s", res.String(), root.Logs())
	res, sid := root.Prompt("second please", "--continue")
	require.NoError(t, res.Err, res.String())
	require.Equal(t, id, sid, "the second run continued the session")
	requireInstalledFrom(t, root, reg)

	out := runIn(t, root.Project, append(os.Environ(), settings...), flush)
	require.Contains(t, out, id+"\t"+base+"/share/", "the flush command prints the session's link")
	exp, res, err := root.Export(id)
	require.NoError(t, err, res.String())
	require.NotEmpty(t, opencodetest.Keys(exp))
	owner := shareToken(t, outboxes, id)
	cmd := exec.Command(node, compare, base, owner)
	cmd.Stdin = strings.NewReader(res.Stdout)
	cmp, err := cmd.CombinedOutput()
	require.NoError(t, err, "the vat lacks items of opencode export: %s", cmp)
	t.Logf("plugin installed by name: %s", strings.TrimSpace(string(cmp)))
}

// globalFlush installs the plugin globally (`npm install -g`, into a
// prefix of the test's own) from reg and returns the path of its
// sharevat-opencode-flush command, checked to answer on bad settings.
func globalFlush(t *testing.T, reg *registry, npm string) string {
	t.Helper()
	prefix := t.TempDir()
	env := reg.Env("NPM_CONFIG_PREFIX=" + prefix)
	runIn(t, t.TempDir(), env, npm, "install", "--global", "--no-audit", "--no-fund", pluginName)
	flush := filepath.Join(prefix, "bin", "sharevat-opencode-flush")
	cmd := exec.Command(flush)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "%s without settings: %s", flush, out)
	require.Equal(t, 2, exit.ExitCode(), "%s without settings exits 2 (bad settings): %s", flush, out)
	require.Contains(t, string(out), "set SHAREVAT_URL and SHAREVAT_TOKEN")
	return flush
}

// requireInstalledFrom checks that opencode installed the plugin from
// reg: the lock of its install directory names reg's tarball.
func requireInstalledFrom(t *testing.T, root *opencodetest.Root, reg *registry) {
	t.Helper()
	locks, err := filepath.Glob(filepath.Join(root.Dir, "cache", "opencode", "packages", "@sharevat", "opencode-plugin*", "package-lock.json"))
	require.NoError(t, err)
	require.NotEmpty(t, locks, "opencode's plugin install directory ($XDG_CACHE_HOME/opencode/packages/@sharevat/opencode-plugin*)")
	for _, lock := range locks {
		b, err := os.ReadFile(lock)
		require.NoError(t, err)
		require.Contains(t, string(b), reg.URL+"@sharevat/opencode-plugin/-/opencode-plugin-", "%s", lock)
	}
}

// mintCreationToken mints a creation token of srv's opencode door with
// the CLI (as an operator does) and returns the file holding it.
func mintCreationToken(t *testing.T, bin string, srv *proctest.Server) string {
	t.Helper()
	out, err := exec.Command(bin, "opencode-token", "mint", "--server", srv.URL,
		"--token-file", filepath.Join(srv.Data, "admin.token"), "--name", "npm", "--json").Output()
	require.NoError(t, err, "opencode-token mint: %s", out)
	var minted struct{ Token string }
	require.NoError(t, json.Unmarshal(out, &minted))
	require.NotEmpty(t, minted.Token)
	file := filepath.Join(t.TempDir(), "creation.token")
	require.NoError(t, os.WriteFile(file, []byte(minted.Token+"\n"), 0o600))
	return file
}

// shareToken is the owner token of the session's share, from the
// plugin's share.json.
func shareToken(t *testing.T, outboxes, sessionID string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(outboxes, sessionID, "share.json"))
	require.NoError(t, err)
	var share struct{ Token string }
	require.NoError(t, json.Unmarshal(b, &share))
	require.NotEmpty(t, share.Token, fmt.Sprintf("%s/share.json has no token", sessionID))
	return share.Token
}
