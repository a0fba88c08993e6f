package opencode_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/client"
)

// TestOpenCreateGivesNoSecretToALinkReader: on --opencode-open the
// session id is public to whoever reads a share's link (its session
// item). Invariant: before the first sync the share's title names no
// session (a create answers it again then); once the share holds
// anything, a create naming that
// session answers 409 without the secret (nor the link, nor the id), and
// the share stays: a DELETE with what a reader knows is 401 and the data
// still answers.
func TestOpenCreateGivesNoSecretToALinkReader(t *testing.T) {
	d := startOpen(t)
	sh := create(t, d.base, "ses_1")
	require.NotContains(t, linkTitle(t, d, sh), "ses_1", "before its first sync the share names no session")
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)
	status, got := items(t, d, sh)
	require.Equal(t, http.StatusOK, status)
	require.Contains(t, string(got[0].Data), `"id":"ses_1"`, "a reader learns the session id")

	r := call(t, "POST", d.base+"/api/share", map[string]string{"sessionID": "ses_1"})
	require.Equal(t, http.StatusConflict, r.status, "%s", r.body)
	require.Contains(t, string(r.body), `"error":"conflict`)
	for _, leak := range []string{sh.Secret, slug(sh), sh.ID} {
		require.NotContains(t, string(r.body), leak)
	}
	r = call(t, "DELETE", d.base+"/api/share/"+sh.ID, map[string]string{"secret": slug(sh)})
	require.Equal(t, http.StatusUnauthorized, r.status, "%s", r.body)
	status, _ = items(t, d, sh)
	require.Equal(t, http.StatusOK, status)
	require.Equal(t, 1, countShares(t, d.Server))
}

// TestOpenCreateTwiceAtOnce: share:"auto" sends two creates for one new
// session at once. Invariant: on --opencode-open, creates of a session
// whose share holds nothing yet (just made) answer the same share, and
// one share exists.
func TestOpenCreateTwiceAtOnce(t *testing.T) {
	d := startOpen(t)
	var wg sync.WaitGroup
	got := make([]share, 4)
	for i := range got {
		wg.Go(func() { got[i] = create(t, d.base, "ses_auto") })
	}
	wg.Wait()
	for _, g := range got[1:] {
		require.Equal(t, got[0], g)
	}
	require.Equal(t, 1, countShares(t, d.Server))
	require.True(t, strings.HasPrefix(got[0].Secret, "svt1_"))
}

// linkTitle is the title a reader of s's link sees.
func linkTitle(t *testing.T, d *door, s share) string {
	t.Helper()
	conn, err := client.Dial(t.Context(), d.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	r, err := conn.Redeem(t.Context(), slug(s))
	require.NoError(t, err)
	defer r.Release()
	return r.Info.Meta.Title
}
