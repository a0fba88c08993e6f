package opencode_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/servertest"
)

// TestShareTitleFollowsSession: a share is titled from its session
// item once one is synced (issue 35 item 7), not "opencode ses_…" or
// "opencode session" for ever. Invariant: on the open door a new share
// is titled "opencode session" (its session id stays unsaid while it may
// be joined); after a sync of the session item it is titled as the
// session; a later version of the session with another title renames
// it; an older version synced late does not.
func TestShareTitleFollowsSession(t *testing.T) {
	d := startOpen(t)
	sh := create(t, d.base, "ses_1")
	require.Equal(t, "opencode session", shareTitle(t, d.Server, sh.ID))

	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, itSession).status)
	require.Equal(t, "hello", shareTitle(t, d.Server, sh.ID))

	renamed := `{"type":"session","data":{"id":"ses_1","title":"Fix the parser","time":{"created":1000,"updated":3000}}}`
	require.Equal(t, http.StatusOK, syncRaw(t, d.base, sh, renamed).status)
	require.Equal(t, "Fix the parser", shareTitle(t, d.Server, sh.ID))

	older := `{"type":"session","data":{"id":"ses_1","title":"stale","time":{"created":1000,"updated":2500}}}`
	r := syncRaw(t, d.base, sh, older)
	require.Equal(t, http.StatusOK, r.status)
	require.Contains(t, string(r.body), `"older":1`)
	require.Equal(t, "Fix the parser", shareTitle(t, d.Server, sh.ID))
}

// shareTitle is the title `sharevat list` shows for share id.
func shareTitle(t *testing.T, s *servertest.Server, id string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := client.Dial(ctx, s.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	adm, err := conn.RedeemAdmin(ctx, s.Admin)
	require.NoError(t, err)
	defer adm.Release()
	for sh, err := range adm.ListAll(ctx, sharevat.ListFilter{}) {
		require.NoError(t, err)
		if string(sh.ID) == id {
			return sh.Meta.Title
		}
	}
	t.Fatalf("share %s is not listed", id)
	return ""
}
