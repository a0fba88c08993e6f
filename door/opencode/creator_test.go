package opencode_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	opencodeshare "github.com/sharevat/sharevat/door/opencode"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// mint mints a creation token through the creation-token API with the
// server's admin token.
func mint(t *testing.T, s *servertest.Server, perHour int, perShare int64) opencodeshare.Minted {
	t.Helper()
	r := adminCall(t, s, "POST", "", opencodeshare.MintRequest{Name: "laptop", SharesPerHour: perHour, BytesPerShare: perShare})
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var m opencodeshare.Minted
	r.json(t, &m)
	return m
}

// adminCall calls the creation-token API with the admin token.
func adminCall(t *testing.T, s *servertest.Server, method, rest string, body any) reply {
	t.Helper()
	return callAuth(t, method, s.HTTP+opencodeshare.TokensPath+rest, body, s.Admin)
}

func callAuth(t *testing.T, method, url string, body any, token string) reply {
	t.Helper()
	req := newReq(t, method, url, body)
	req.Header.Set("Authorization", "Bearer "+token)
	return do(t, req)
}

// TestCreationTokenCreatesOnly: without --opencode-open a create needs a
// creation token in the path. Invariant: no token, a malformed one, a
// wrong one, the admin token and a revoked one all answer 401 JSON and create nothing; a
// minted one creates; it is listed (never with its secret); it cannot
// list shares over /rpc nor take a backup; rotating nothing else, a
// revoke ends it at once.
func TestCreationTokenCreatesOnly(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	for _, base := range []string{s.HTTP, s.HTTP + "/opencode/nonsense", s.HTTP + "/opencode/svt1_aaaaaaaaaaaaaaaaaaaaaaaa_" + strings.Repeat("A", 43),
		s.HTTP + "/opencode/" + s.Admin} { // the admin token does not belong in opencode's config
		r := call(t, "POST", base+"/api/share", map[string]string{"sessionID": "ses_1"})
		require.Equal(t, http.StatusUnauthorized, r.status, "%s: %s", base, r.body)
		require.Contains(t, string(r.body), `"error":"unauthorized`)
	}
	require.Zero(t, countShares(t, s))

	m := mint(t, s, 0, 0)
	base := s.HTTP + "/opencode/" + m.Token
	sh := create(t, base, "ses_1")
	require.Equal(t, 1, countShares(t, s))
	r := syncRaw(t, base, sh, itSession)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)

	r = adminCall(t, s, "GET", "", nil)
	require.Equal(t, http.StatusOK, r.status)
	require.Contains(t, string(r.body), m.GrantID)
	require.NotContains(t, string(r.body), m.Token)
	require.Equal(t, http.StatusUnauthorized, callAuth(t, "GET", s.HTTP+opencodeshare.TokensPath, nil, m.Token).status)

	ctx := context.Background()
	conn, err := client.Dial(ctx, s.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	adm, err := conn.RedeemAdmin(ctx, m.Token)
	require.NoError(t, err)
	_, _, err = adm.List(ctx, sharevat.ListFilter{})
	require.Equal(t, sharevat.EPermissionDenied, sharevat.ErrorCode(err), "%v", err)
	require.Equal(t, http.StatusUnauthorized, callAuth(t, "GET", s.HTTP+"/backup", nil, m.Token).status)

	r = adminCall(t, s, "DELETE", "/"+m.GrantID, nil)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	r = call(t, "POST", base+"/api/share", map[string]string{"sessionID": "ses_2"})
	require.Equal(t, http.StatusUnauthorized, r.status, "%s", r.body)
	require.Equal(t, 1, countShares(t, s))
}

// TestCreationTokenQuotas: a creation token's quotas hold. Invariant:
// past its shares per hour a create of a new session answers 429 and
// creates nothing, while a create of a session it already shared still
// answers that share; a sync that would take a share past its bytes
// per share answers 413 naming the limit, and stores nothing of it.
func TestCreationTokenQuotas(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	m := mint(t, s, 1, 600)
	base := s.HTTP + "/opencode/" + m.Token
	first := create(t, base, "ses_1")
	r := call(t, "POST", base+"/api/share", map[string]string{"sessionID": "ses_2"})
	require.Equal(t, http.StatusTooManyRequests, r.status, "%s", r.body)
	require.Equal(t, first, create(t, base, "ses_1"))
	require.Equal(t, 1, countShares(t, s))

	require.Equal(t, http.StatusOK, syncRaw(t, base, first, itSession).status)
	big := `{"type":"part","data":{"id":"prt_9","messageID":"msg_1","text":"` + strings.Repeat("x", 600) + `"}}`
	r = syncRaw(t, base, first, big)
	require.Equal(t, http.StatusRequestEntityTooLarge, r.status, "%s", r.body)
	require.Contains(t, string(r.body), "600 bytes")
	d := &door{Server: s, base: base}
	_, got := items(t, d, first)
	require.Len(t, got, 1)
}

// TestCreateIdempotent: share:"auto" sends two creates for one session
// at once, and a later run creates again. Invariant: every create of one
// session through one creation right answers the same id and url and a
// secret that syncs, also after the vat restarted; the index holds no
// token in plain.
func TestCreateIdempotent(t *testing.T) {
	dir := t.TempDir()
	s := startOn(t, dir)
	m := mint(t, s, 0, 0)
	base := s.HTTP + "/opencode/" + m.Token
	var wg sync.WaitGroup
	got := make([]share, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = create(t, base, "ses_twice")
		}()
	}
	wg.Wait()
	for _, g := range got[1:] {
		require.Equal(t, got[0], g)
	}
	require.Equal(t, 1, countShares(t, s))
	other := create(t, base, "ses_other")
	require.NotEqual(t, got[0].ID, other.ID)

	closeServer(t, s)
	s = startOn(t, dir)
	base = s.HTTP + "/opencode/" + m.Token
	again := create(t, base, "ses_twice")
	require.Equal(t, got[0].ID, again.ID)
	require.Equal(t, slug(got[0]), slug(again))
	r := syncRaw(t, base, again, itSession)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Equal(t, 2, countShares(t, s))
	requireNoSecretIn(t, dir, got[0].Secret, slug(got[0]), m.Token)
}

// TestAdminRotationRevokesCreationTokens: a creation token is minted
// under the admin grant. Invariant: rotating the admin token (deleting
// admin.token and restarting, as on first start) revokes every creation
// token; the shares they made stay, and their secrets still sync.
func TestAdminRotationRevokesCreationTokens(t *testing.T) {
	dir := t.TempDir()
	s := startOn(t, dir)
	m := mint(t, s, 0, 0)
	sh := create(t, s.HTTP+"/opencode/"+m.Token, "ses_rot")
	closeServer(t, s)
	require.NoError(t, os.Remove(filepath.Join(dir, server.AdminFile)))
	s = startOn(t, dir)
	r := call(t, "POST", s.HTTP+"/opencode/"+m.Token+"/api/share", map[string]string{"sessionID": "ses_rot2"})
	require.Equal(t, http.StatusUnauthorized, r.status, "%s", r.body)
	r = syncRaw(t, s.HTTP, sh, itSession)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
}
