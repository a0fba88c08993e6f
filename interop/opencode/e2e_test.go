// Package opencode_test runs the real opencode client (pinned in this
// directory's package.json) against a real `sharevat serve` through its
// opencode door: share, page, continue, SIGKILL, import, unshare, the
// privacy guard and a wrong creation token (docs/opencode.md).
package opencode_test

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
)

// plantedKey is an AWS-access-key-shaped secret made at run time (no
// literal of its shape in the source): the privacy guard's
// aws-access-key-id rule matches it.
func plantedKey(t *testing.T) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	b := make([]byte, 16)
	_, err := rand.Read(b)
	require.NoError(t, err)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return "AK" + "IA" + string(b)
}

var plantedRe = regexp.MustCompile(`AKIA[A-Z2-7]{16}`)

// TestOpencodeSharesIntoTheVat is the whole life of one shared session
// with the real opencode: `run --share` through a creation token prints
// the vat's link; the vat holds what `opencode export` shows except what
// opencode never sent (logged: the loss at exit); the page shows the
// conversation; a planted key reaches neither the data directory, the
// log, the page nor …/data; the vat SIGKILLed keeps every acknowledged
// item; `run --continue` appends to the same share; `opencode import`
// in a second root recreates what the vat holds; unsharing through
// `opencode serve` ends the page and …/data answers 404.
func TestOpencodeSharesIntoTheVat(t *testing.T) {
	t.Parallel()
	v := startVat(t)
	key := plantedKey(t)
	m := opencodetest.NewModel(t, opencodetest.Bash("echo hello > hello.txt"), opencodetest.Echo(plantedRe))
	r := opencodetest.NewRoot(t, opencodetest.Config{Model: m, EnterpriseURL: v.mint(t)})

	res, id := r.Prompt("write hello.txt, then repeat my key "+key, "--share")
	require.NoError(t, res.Err, res.String())
	link := opencodetest.ShareURL(res.Stdout + res.Stderr)
	require.True(t, strings.HasPrefix(link, v.proxy.URL+"/share/svt1_"), "opencode printed the vat's link: %s", res.String())
	assert.Empty(t, refused(v.proxy), "the vat accepted every call opencode made")

	_, first := data(t, link)
	local, ok, err := r.Share(id)
	require.NoError(t, err)
	require.True(t, ok && local.URL == link, "opencode keeps the share: %+v", local)
	sameItems(t, v.snapshot(t, local.Secret), first, "sharevat snapshot with opencode's secret vs …/data")
	checkAgainstExport(t, r, v.proxy, id, key, first, "first run")
	checkPlanted(t, v, first, key)
	page := openPage(t, link)
	waitPage(t, page, "the prompt shown", pageText+`.includes("repeat my key")`, time.Minute)
	if echoSent(first) {
		waitPage(t, page, "the echo shown", pageText+`.includes("echo: ")`, time.Minute)
	}
	waitPage(t, page, "live", pageLive, time.Minute)
	assert.NotContains(t, evalPage[string](t, page, `document.body.innerText`), key)

	v.restart(t)
	_, after := data(t, link)
	assert.Equal(t, first, after, "a SIGKILL lost nothing the vat had acknowledged")

	m.Push(opencodetest.Text("Second answer."))
	res, id2 := r.Prompt("and a second question", "--continue")
	require.NoError(t, res.Err, res.String())
	require.Equal(t, id, id2)
	_, second := data(t, link)
	assert.Greater(t, len(second), len(first), "--continue appended to the same share")
	assert.Len(t, creates(v.proxy), 1, "one share")
	assert.Empty(t, refused(v.proxy))
	checkAgainstExport(t, r, v.proxy, id, key, second, "after --continue")

	checkImport(t, m, link, second)
	checkUnshare(t, r, v, page, id, link)
}

// checkAgainstExport compares the vat's items with `opencode export` and
// logs the figures: nothing the vat holds is foreign to the session,
// and the session and its first message are there.
func checkAgainstExport(t *testing.T, r *opencodetest.Root, p *opencodetest.Proxy, id, key string, items map[string]opencodetest.Item, when string) {
	t.Helper()
	exp, res, err := r.Export(id)
	require.NoError(t, err, res.String())
	c := opencodetest.Compare(exp, items)
	var redacted, stale []string
	objs := opencodetest.Objects(exp)
	for _, k := range c.Stale {
		if b, _ := json.Marshal(objs[k]); strings.Contains(string(b), key) {
			redacted = append(redacted, k)
		} else {
			stale = append(stale, k)
		}
	}
	t.Logf("%s: export holds %d objects (%d messages, %d parts); the vat holds %d as exported, %d redacted (the planted key), "+
		"%d in an earlier version (opencode never sent the last change) %v, lacks %d (never sent) %v",
		when, c.Total, len(exp.Messages), exp.PartCount(), len(c.Same), len(redacted), len(stale), stale, len(c.Missing), c.Missing)
	assert.NotEmpty(t, redacted, "the parts holding the planted key (the prompt, the echo) are redacted in the vat")
	assert.Empty(t, sentButLost(t, p, objs, append(stale, c.Missing...)), "what the vat lacks, opencode never sent")
	assert.Empty(t, opencodetest.Extra(exp, items), "the vat holds nothing the session lacks")
	assert.Contains(t, items, "session")
	require.NotEmpty(t, exp.Messages)
	assert.Contains(t, items, "message/"+exp.Messages[0].Info["id"].(string))
}

// sentButLost lists the keys among keys whose exported object opencode
// did send in a sync the vat acknowledged: those the vat should hold.
func sentButLost(t *testing.T, p *opencodetest.Proxy, objs map[string]map[string]any, keys []string) []string {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	var lost []string
	for _, c := range p.Calls() {
		var sb opencodetest.SyncBody
		if !strings.HasSuffix(c.Path, "/sync") || c.Status != http.StatusOK || json.Unmarshal(c.Body, &sb) != nil {
			continue
		}
		for _, it := range sb.Data {
			k := opencodetest.ItemKey(it)
			var got map[string]any
			if want[k] && json.Unmarshal(it.Data, &got) == nil && reflect.DeepEqual(got, objs[k]) {
				lost = append(lost, k)
				want[k] = false
			}
		}
	}
	return lost
}

// checkPlanted: the key in the prompt (and echoed by the model into a
// text part, when opencode sent it) is in none of the vat's files, its log
// or …/data; the prompt's part is there with the key redacted.
func checkPlanted(t *testing.T, v *vat, items map[string]opencodetest.Item, key string) {
	t.Helper()
	b, err := json.Marshal(items)
	require.NoError(t, err)
	assert.NotContains(t, string(b), key, "…/data")
	assert.Contains(t, string(b), "repeat my key [REDACTED:", "the prompt's part is shared, the key redacted")
	if !echoSent(items) {
		// The model's echo is the run's last step, which stock opencode
		// often never sends before it exits (the loss measured above).
		t.Log("opencode did not send the model's echo before it exited; the prompt's part carries the key")
	}
	assert.NotContains(t, v.log(), key, "the vat's log")
	err = filepath.WalkDir(v.data, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.ReadFile(p)
		if err == nil {
			assert.NotContains(t, string(f), key, "file %s", p)
		}
		return err
	})
	require.NoError(t, err)
}

// checkImport: `opencode import <link>` in a second root recreates the
// session, messages and parts the vat holds.
func checkImport(t *testing.T, m *opencodetest.Model, link string, items map[string]opencodetest.Item) {
	t.Helper()
	r2 := opencodetest.NewRoot(t, opencodetest.Config{Model: m})
	res := r2.Import(link)
	require.NoError(t, res.Err, res.String())
	exp, eres, err := r2.Export(opencodetest.ImportedSession(res.Stdout))
	require.NoError(t, err, eres.String())
	assert.Empty(t, opencodetest.Missing(exp, items), "the import holds only what the vat holds")
	assert.Empty(t, opencodetest.Extra(exp, items), "the import holds all the vat holds")
}

// checkUnshare unshares through `opencode serve`'s local API: the open
// page ends (the time is logged) and …/data answers 404.
func checkUnshare(t *testing.T, r *opencodetest.Root, v *vat, page context.Context, id, link string) {
	t.Helper()
	waitPage(t, page, "live again after the restart", pageLive, time.Minute)
	s := r.Serve(t)
	require.NoError(t, s.Unshare(id))
	ended := waitPage(t, page, "the page ended", pageRevoked, 30*time.Second)
	t.Logf("unshare: the open page said the share is gone %v after opencode's DELETE returned", ended)
	status, _ := data(t, link)
	assert.Equal(t, http.StatusNotFound, status)
	var deletes int
	for _, c := range v.proxy.Calls() {
		if c.Method == http.MethodDelete {
			deletes++
			assert.Equal(t, http.StatusOK, c.Status, "%s", c.Answer)
		}
	}
	assert.Equal(t, 1, deletes)
}

// echoSent reports whether items hold the model's echo (a text part
// "echo: …"): the run's last step, which opencode may not have sent.
func echoSent(items map[string]opencodetest.Item) bool {
	for _, it := range items {
		if strings.Contains(string(it.Data), `"echo: `) {
			return true
		}
	}
	return false
}
