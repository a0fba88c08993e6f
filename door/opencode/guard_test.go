package opencode_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// planted is a secret-shaped string (an AWS access key id) the privacy
// guard knows.
const planted = "AKIAZ7QW2ERT5YUI3OPA"

// TestPlantedSecretNeverStored: opencode's shares leak API keys when a
// prompt or a tool output holds one. Invariant: an item carrying a
// planted key is stored redacted: neither GET …/data nor any file of the
// data directory holds the key, and the sync answer counts the
// redaction.
func TestPlantedSecretNeverStored(t *testing.T) {
	dir := t.TempDir()
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) { c.Data = dir; c.OpencodeOpen = true }})
	d := &door{Server: s, base: s.HTTP}
	sh := create(t, d.base, "ses_leak")
	part := `{"type":"part","data":{"id":"prt_1","messageID":"msg_1","type":"text","text":"my key is ` + planted + `"}}`
	r := syncRaw(t, d.base, sh, itMessage+","+part)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Contains(t, string(r.body), `"redacted":1`)
	_, got := items(t, d, sh)
	require.Len(t, got, 2)
	require.NotContains(t, string(got[1].Data), planted)
	require.Contains(t, string(got[1].Data), "REDACTED")
	closeServer(t, s)
	requireNoSecretIn(t, dir, planted)
}

// TestTokensStayOutOfLogs: tokens travel in opencode's paths and bodies.
// Invariant: after creates, syncs, data reads, page loads and refused
// requests with good and bad tokens, the server's log holds no token's
// secret; every answer says Referrer-Policy: no-referrer and no-store.
func TestTokensStayOutOfLogs(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	m := mint(t, s, 0, 0)
	base := s.HTTP + "/opencode/" + m.Token
	sh := create(t, base, "ses_log")
	require.Equal(t, http.StatusOK, syncRaw(t, base, sh, itSession).status)
	for _, u := range []string{sh.URL, s.HTTP + "/api/share/" + slug(sh) + "/data", s.HTTP + "/share/app.js"} {
		r := call(t, "GET", u, nil)
		require.Equal(t, http.StatusOK, r.status, u)
		require.Equal(t, "no-referrer", r.header.Get("Referrer-Policy"), u)
		require.Equal(t, "no-store", r.header.Get("Cache-Control"), u)
	}
	bad := strings.Replace(m.Token, m.Token[len(m.Token)-5:], "AAAAA", 1)
	r := call(t, "POST", s.HTTP+"/opencode/"+bad+"/api/share", map[string]string{"sessionID": "x"})
	require.Equal(t, http.StatusUnauthorized, r.status)
	require.NotContains(t, string(r.body), bad[len(bad)-43:])
	r = call(t, "GET", s.HTTP+"/api/share/"+sh.Secret+"/data", nil)
	require.Equal(t, http.StatusNotFound, r.status)
	require.NotContains(t, string(r.body), sh.Secret[len(sh.Secret)-43:])
	require.Equal(t, http.StatusOK, call(t, "DELETE", base+"/api/share/"+sh.ID, map[string]string{"secret": sh.Secret}).status)
	log := s.Log.String()
	for _, tok := range []string{m.Token, sh.Secret, slug(sh), bad, s.Admin} {
		require.NotContains(t, log, tok[len(tok)-43:])
	}
}

// TestSharePageAtPath: the link opencode prints is /share/<slug>.
// Invariant: it serves the share page (its CSP, no-referrer), whose
// relative assets load from /share/, and whose script reads the slug
// from the path.
func TestSharePageAtPath(t *testing.T) {
	d := startOpen(t)
	sh := create(t, d.base, "ses_page")
	r := call(t, "GET", sh.URL, nil)
	require.Equal(t, http.StatusOK, r.status)
	require.Contains(t, r.header.Get("Content-Type"), "text/html")
	require.Contains(t, r.header.Get("Content-Security-Policy"), "default-src 'none'")
	require.Contains(t, string(r.body), `src="app.js"`)
	js := call(t, "GET", d.HTTP+"/share/app.js", nil)
	require.Equal(t, http.StatusOK, js.status)
	require.Contains(t, string(js.body), "tokenFromPath")
}

// TestDoorCountsAgainstConnLimits: the door is one more door of the
// vat. Invariant: with --max-conns-per-ip 1 held by an /rpc connection,
// a door request from the same address is refused with 503 JSON, and
// served once the connection closed.
func TestDoorCountsAgainstConnLimits(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.Peers.MaxConnsPerIP = 1
		c.Peers.PerIPLoopback = true
	}})
	conn, err := client.Dial(context.Background(), s.URL, nil)
	require.NoError(t, err)
	r := call(t, "POST", s.HTTP+"/api/share", map[string]string{"sessionID": "ses_full"})
	require.Equal(t, http.StatusServiceUnavailable, r.status, "%s", r.body)
	require.Contains(t, string(r.body), `"error":"unavailable`)
	require.NoError(t, conn.Close())
	require.Eventually(t, func() bool {
		return call(t, "POST", s.HTTP+"/api/share", map[string]string{"sessionID": "ses_full"}).status == http.StatusOK
	}, 10e9, 20e6)
}

// TestDoorCountsAgainstMemoryBudget: a body the door holds is counted
// in the server's memory budget (--memory-budget), one budget for every
// door. Invariant: a sync larger than the whole budget is refused with
// 503 JSON and stores nothing; a small one passes.
func TestDoorCountsAgainstMemoryBudget(t *testing.T) {
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.Peers.MemoryBudget = 256 << 10
	}})
	d := &door{Server: s, base: s.HTTP}
	sh := create(t, d.base, "ses_mem")
	big := `{"type":"part","data":{"id":"prt_1","messageID":"msg_1","text":"` + strings.Repeat("z", 300<<10) + `"}}`
	r := syncRaw(t, d.base, sh, big)
	require.Equal(t, http.StatusServiceUnavailable, r.status, "%.200s", r.body)
	require.Contains(t, string(r.body), "memory budget")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)
	_, got := items(t, d, sh)
	require.Len(t, got, 1)
}
