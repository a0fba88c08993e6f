package opencode_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// TestSecretWithoutTheRightIsTheOne401: the share's public link (a
// read-only token of the same share) or an append-only grant sent as
// the "secret" of a sync or a delete is a wrong secret. Invariant: each
// answers the very bytes an unknown share id answers (401), not a 403
// that tells a link holder what the token may do; nothing is written or
// deleted; the owner's secret still syncs and deletes.
func TestSecretWithoutTheRightIsTheOne401(t *testing.T) {
	d := startOpen(t)
	sh := create(t, d.base, "ses_link")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)
	ctx := context.Background()
	conn, err := client.Dial(ctx, d.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	owner, err := conn.Redeem(ctx, sh.Secret)
	require.NoError(t, err)
	defer owner.Release()
	appendOnly, err := owner.Grant(ctx, sharevat.ScopeRead|sharevat.ScopeAppend, 0, "writer")
	require.NoError(t, err)

	syncURL, delURL := d.base+"/api/share/"+sh.ID+"/sync", d.base+"/api/share/"+sh.ID
	one := call(t, "POST", d.base+"/api/share/aaaaaaaaaaaaaaaaaaaaaaaa/sync", `{"secret":`+quote(sh.Secret)+`,"data":[]}`)
	require.Equal(t, http.StatusUnauthorized, one.status)
	for _, c := range []struct{ name, method, url, body string }{
		{"link syncs", "POST", syncURL, `{"secret":` + quote(slug(sh)) + `,"data":[` + itMessage + `]}`},
		{"link deletes", "DELETE", delURL, `{"secret":` + quote(slug(sh)) + `}`},
		{"append-only grant deletes", "DELETE", delURL, `{"secret":` + quote(appendOnly.Token) + `}`},
	} {
		r := call(t, c.method, c.url, c.body)
		require.Equal(t, one.status, r.status, "%s: %s", c.name, r.body)
		require.Equal(t, string(one.body), string(r.body), c.name)
		require.Equal(t, "no-store", r.header.Get("Cache-Control"), c.name)
		require.Equal(t, "no-referrer", r.header.Get("Referrer-Policy"), c.name)
	}
	status, got := items(t, d, sh)
	require.Equal(t, http.StatusOK, status, "a link deleted the share")
	require.Len(t, got, 1, "a link's sync wrote something")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itMessage).status)
	require.Equal(t, http.StatusOK, call(t, "DELETE", delURL, `{"secret":`+quote(sh.Secret)+`}`).status)
}
