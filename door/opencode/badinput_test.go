package opencode_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestBadInput: every malformed request gets a JSON error and a 4xx,
// never a 500, and writes nothing. Invariant: the share's data after
// all of them is exactly the one good item synced first; an unknown id
// and a wrong secret get byte-identical 401s; a body over the limit gets
// 413 naming the limit; an unknown item type is named.
func TestBadInput(t *testing.T) {
	const limit = 64 << 10
	s := servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
		c.OpencodeOpen = true
		c.OpencodeMaxBody = limit
	}})
	d := &door{Server: s, base: s.HTTP}
	sh := create(t, d.base, "ses_bad")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)
	other := create(t, d.base, "ses_other")

	sync := d.base + "/api/share/" + sh.ID + "/sync"
	for _, c := range []struct {
		name, method, url, body string
		status                  int
		says                    string
	}{
		{"malformed JSON", "POST", sync, `{"secret":`, 400, "invalid"},
		{"no body", "POST", sync, ``, 400, "invalid"},
		{"data not an array", "POST", sync, `{"secret":"` + sh.Secret + `","data":{"type":"session"}}`, 400, "data must be an array"},
		{"data missing", "POST", sync, `{"secret":"` + sh.Secret + `"}`, 400, "data must be an array"},
		{"unknown type", "POST", sync, `{"secret":"` + sh.Secret + `","data":[` + itMessage + `,{"type":"weird","data":{}}]}`, 400, `unknown item type \"weird\"`},
		{"part without messageID", "POST", sync, `{"secret":"` + sh.Secret + `","data":[` + itMessage + `,{"type":"part","data":{"id":"p"}}]}`, 400, "messageID"},
		{"numeric id", "POST", sync, `{"secret":"` + sh.Secret + `","data":[{"type":"message","data":{"id":5}}]}`, 400, "string id"},
		{"item data not JSON", "POST", sync, `{"secret":"` + sh.Secret + `","data":[{"type":"message","data":nope}]}`, 400, "invalid"},
		{"missing secret", "POST", sync, `{"data":[]}`, 401, "unauthorized"},
		{"oversized", "POST", sync, `{"secret":"` + sh.Secret + `","data":[{"type":"message","data":{"id":"m","x":"` + strings.Repeat("a", limit) + `"}}]}`, 413, "65536 bytes"},
		{"delete without body", "DELETE", d.base + "/api/share/" + sh.ID, ``, 400, "invalid"},
		{"delete without secret", "DELETE", d.base + "/api/share/" + sh.ID, `{}`, 401, "unauthorized"},
		{"another share's secret", "DELETE", d.base + "/api/share/" + sh.ID, `{"secret":"` + other.Secret + `"}`, 401, "unauthorized"},
		{"create without sessionID", "POST", d.base + "/api/share", `{}`, 400, "sessionID"},
		{"create with a number", "POST", d.base + "/api/share", `{"sessionID":5}`, 400, "invalid"},
		{"GET on sync", "GET", sync, ``, 405, "method"},
		{"data with the secret", "GET", d.base + "/api/share/" + sh.Secret + "/data", ``, 404, "notFound"},
		{"unknown route", "POST", d.base + "/api/share/x/y/z", `{}`, 404, "notFound"},
		{"tokens without admin", "GET", d.base + opencodeshare.TokensPath, ``, 401, "unauthorized"},
	} {
		r := call(t, c.method, c.url, c.body)
		require.Equal(t, c.status, r.status, "%s: %s", c.name, r.body)
		require.Equal(t, "application/json", r.header.Get("Content-Type"), c.name)
		require.Equal(t, "no-store", r.header.Get("Cache-Control"), c.name)
		require.Contains(t, string(r.body), c.says, c.name)
		require.NotContains(t, string(r.body), sh.Secret[len(sh.Secret)-43:], c.name)
	}
	req := newReq(t, "POST", d.base+"/api/share", `{"sessionID":"ses_csrf"}`)
	req.Header.Set("Origin", "http://evil.example")
	r := do(t, req)
	require.Equal(t, http.StatusForbidden, r.status, "a cross-origin create: %s", r.body)
	require.Equal(t, 2, countShares(t, s))

	_, got := items(t, d, sh)
	require.Len(t, got, 1, "a refused sync wrote something")

	unknown := call(t, "POST", d.base+"/api/share/aaaaaaaaaaaaaaaaaaaaaaaa/sync", `{"secret":"`+sh.Secret+`","data":[]}`)
	wrong := call(t, "POST", sync, `{"secret":"`+other.Secret+`","data":[]}`)
	garbage := call(t, "POST", sync, `{"secret":"nonsense","data":[]}`)
	require.Equal(t, http.StatusUnauthorized, unknown.status)
	require.Equal(t, unknown.body, wrong.body)
	require.Equal(t, unknown.body, garbage.body)
}
