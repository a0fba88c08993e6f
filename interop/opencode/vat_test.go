package opencode_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// sharevatBin is the sharevat binary the tests share, built with the
// race detector.
var sharevatBin = proctest.Once{PkgDir: filepath.Join("..", "..", "cmd", "sharevat"), Race: true}

// TestMain removes the shared sharevat binary.
func TestMain(m *testing.M) {
	code := m.Run()
	sharevatBin.Cleanup()
	os.Exit(code)
}

// vat is a real `sharevat serve` behind a logging proxy: opencode and
// the browser reach it only through the proxy (its public URL), so it
// can be SIGKILLed and restarted on its data directory while opencode
// keeps its enterprise.url.
type vat struct {
	bin   string
	data  string
	extra []string
	srv   *proctest.Server
	proxy *opencodetest.Proxy
}

// startVat starts a vat on a fresh data directory with extra serve
// arguments.
func startVat(t *testing.T, extra ...string) *vat {
	t.Helper()
	v := &vat{bin: sharevatBin.Binary(t), data: filepath.Join(t.TempDir(), "data"), extra: extra}
	v.proxy = opencodetest.NewProxy(t, "http://127.0.0.1:1")
	v.start(t)
	return v
}

// start runs `sharevat serve` on v's data directory and points the proxy
// at it.
func (v *vat) start(t *testing.T) {
	t.Helper()
	args := append([]string{"serve", "--listen", "127.0.0.1:0", "--data", v.data, "--public-url", v.proxy.URL}, v.extra...)
	s, err := proctest.Start(t, v.bin, []string{"GORACE=atexit_sleep_ms=0 exitcode=66"}, args...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NotContains(t, s.Log.String(), "WARNING: DATA RACE") })
	v.srv = s
	v.proxy.SetTarget(t, httpBase(s.URL))
}

// restart SIGKILLs the vat and starts it again on the same data.
func (v *vat) restart(t *testing.T) {
	t.Helper()
	v.srv.Kill()
	v.start(t)
}

// log is everything the vat processes printed so far (the current one).
func (v *vat) log() string { return v.srv.Log.String() }

// httpBase turns ws://HOST:PORT/rpc into http://HOST:PORT.
func httpBase(rpcURL string) string {
	return strings.TrimSuffix(strings.Replace(rpcURL, "ws://", "http://", 1), "/rpc")
}

// mint mints a creation token with the CLI, as an operator does, and
// returns the enterprise.url it prints (rewritten to the proxy).
func (v *vat) mint(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(v.bin, "opencode-token", "mint", "--server", v.srv.URL,
		"--token-file", filepath.Join(v.data, "admin.token"), "--name", "e2e", "--json")
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var m struct{ Token, Config string }
	require.NoError(t, json.Unmarshal(out, &m), "%s", out)
	require.Contains(t, m.Config, "/opencode/"+m.Token)
	return v.proxy.URL + "/opencode/" + m.Token
}

// data reads GET /api/share/<slug>/data for a share link: the status
// and the items, keyed by opencode's client-side key.
func data(t *testing.T, link string) (int, map[string]opencodetest.Item) {
	t.Helper()
	i := strings.Index(link, "/share/")
	require.Positive(t, i, link)
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Get(link[:i] + "/api/share/" + link[i+len("/share/"):] + "/data")
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	var list []opencodetest.Item
	require.NoError(t, json.Unmarshal(b, &list), "%s", b)
	items := map[string]opencodetest.Item{}
	for _, it := range list {
		items[opencodetest.ItemKey(it)] = it
	}
	return resp.StatusCode, items
}

// creates are the share creates the proxy saw, in order.
func creates(p *opencodetest.Proxy) []opencodetest.Call {
	var out []opencodetest.Call
	for _, c := range p.Calls() {
		if c.Method == http.MethodPost && strings.HasSuffix(c.Path, "/api/share") {
			out = append(out, c)
		}
	}
	return out
}

// refused are the share API calls the vat answered with a status ≥ 400.
func refused(p *opencodetest.Proxy) []string {
	var out []string
	for _, c := range p.Calls() {
		if strings.Contains(c.Path, "/api/share") && c.Status >= 400 {
			out = append(out, c.Method+" "+c.Path+": "+string(c.Answer))
		}
	}
	return out
}

// snapshot is `sharevat snapshot` of the share whose owner token is
// secret, as items keyed like opencode's client-side keys (the door's
// op keys: the session id, the message id, <messageID>/<partID>).
func (v *vat) snapshot(t *testing.T, secret string) map[string]opencodetest.Item {
	t.Helper()
	cmd := exec.Command(v.bin, "snapshot", "--server", v.srv.URL)
	cmd.Env = append(os.Environ(), "SHAREVAT_TOKEN="+secret)
	out, err := cmd.Output()
	require.NoError(t, err, "%s", out)
	var snap struct {
		Entities []struct {
			Kind, Key string
			Body      json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal(out, &snap), "%s", out)
	items := map[string]opencodetest.Item{}
	for _, e := range snap.Entities {
		k := e.Kind
		if k == "message" || k == "part" {
			k += "/" + e.Key
		}
		items[k] = opencodetest.Item{Type: e.Kind, Data: e.Body}
	}
	return items
}

// sameItems asserts that a and b hold the same keys with equal JSON.
func sameItems(t *testing.T, a, b map[string]opencodetest.Item, msg string) {
	t.Helper()
	require.Equal(t, len(a), len(b), "%s: %d and %d items", msg, len(a), len(b))
	for k, x := range a {
		y, ok := b[k]
		require.True(t, ok, "%s: %s missing", msg, k)
		assert.JSONEq(t, string(x.Data), string(y.Data), "%s: %s", msg, k)
	}
}
