package opencode_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/opencodetest"
)

// TestOpencodeAutoShareMakesOneShare: with share:"auto" opencode sends
// two creates for its new session at once; the vat answers both with
// the same share, so the session has one link and one share.
func TestOpencodeAutoShareMakesOneShare(t *testing.T) {
	t.Parallel()
	v := startVat(t, "--opencode-open")
	m := opencodetest.NewModel(t, opencodetest.Echo(regexp.MustCompile(`word-\w+`)))
	r := opencodetest.NewRoot(t, opencodetest.Config{Model: m, EnterpriseURL: v.proxy.URL, Share: "auto"})
	res, id := r.Prompt("please say word-banana")
	require.NoError(t, res.Err, res.String())
	cs := creates(v.proxy)
	require.Len(t, cs, 2, "opencode 1.18.33 sends two creates on share:auto")
	for _, c := range cs {
		require.Equal(t, http.StatusOK, c.Status, "%s", c.Answer)
	}
	assert.JSONEq(t, string(cs[0].Answer), string(cs[1].Answer), "both creates answer the same share")
	assert.Empty(t, refused(v.proxy))
	exp, eres, err := r.Export(id)
	require.NoError(t, err, eres.String())
	share, _ := exp.Info["share"].(map[string]any)
	link, _ := share["url"].(string)
	require.True(t, strings.HasPrefix(link, v.proxy.URL+"/share/"), "export: %v", exp.Info)
	status, items := data(t, link)
	require.Equal(t, http.StatusOK, status)
	assert.Contains(t, items, "session")
}

// TestOpencodeWrongCreationTokenFails: an enterprise.url whose creation
// token the vat never minted gets 401 on the create, nothing is synced,
// the session is not shared (opencode says nothing of it), and the
// token is not in the vat's log.
func TestOpencodeWrongCreationTokenFails(t *testing.T) {
	t.Parallel()
	v := startVat(t)
	good := v.mint(t)
	i := strings.LastIndex(good, "/")
	wrong := good[:i+1] + "svt1_" + strings.Repeat("A", len(good[i+1:])-5)
	require.NotEqual(t, good, wrong)
	m := opencodetest.NewModel(t, opencodetest.Text("An answer."))
	r := opencodetest.NewRoot(t, opencodetest.Config{Model: m, EnterpriseURL: wrong})
	res, id := r.Prompt("hello", "--share")
	require.NoError(t, res.Err, res.String())
	calls := v.proxy.Calls()
	require.NotEmpty(t, calls)
	for _, c := range calls {
		assert.Equal(t, http.MethodPost, c.Method, c.Path)
		assert.True(t, strings.HasSuffix(c.Path, "/api/share"), "nothing but the create: %s", c.Path)
		assert.Equal(t, http.StatusUnauthorized, c.Status, "%s", c.Answer)
	}
	// Stock opencode 1.18.33 says nothing of the failure (stdout, stderr
	// and its log at INFO): its log shows the attempt, and no link
	// appears anywhere, nor in the session (docs/opencode.md).
	logs := r.Logs()
	assert.Contains(t, logs, `message="creating share"`, "opencode tried")
	assert.Empty(t, opencodetest.ShareURL(res.Stdout+res.Stderr+logs), "no link")
	exp, eres, err := r.Export(id)
	require.NoError(t, err, eres.String())
	assert.Nil(t, exp.Info["share"], "the session is not shared")
	assert.NotContains(t, v.log(), wrong[i+1:])
}
