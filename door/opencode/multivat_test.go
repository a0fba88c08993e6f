package opencode_test

import (
	"crypto/rand"
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
)

// TestTwoVatsOnePostgresOneShare: two vats on one PostgreSQL database
// (behind one load balancer) serve one opencode. Invariant: the creates
// of one session answer one share whichever vat each reaches, at once
// (share:"auto") or later (the plugin's create with the same creation
// token), and only one share exists per session.
func TestTwoVatsOnePostgresOneShare(t *testing.T) {
	dsn := pgtest.Own(t).DSN()
	pepper := make([]byte, 32)
	rand.Read(pepper)
	dir := t.TempDir() // one pepper and admin token for both, as one deployment's secrets
	start := func() *servertest.Server {
		return servertest.Start(t, servertest.Options{Config: func(c *server.Config) {
			c.Store, c.Pepper, c.Data, c.OpencodeOpen = dsn, pepper, dir, true
		}})
	}
	a, b := start(), start()

	var wg sync.WaitGroup
	got := make([]share, 6)
	for i := range got {
		base := []string{a.HTTP, b.HTTP}[i%2]
		wg.Go(func() { got[i] = create(t, base, "ses_lb") })
	}
	wg.Wait()
	for _, g := range got[1:] {
		require.Equal(t, got[0].ID, g.ID)
		require.Equal(t, got[0].Secret, g.Secret)
	}

	m := mint(t, a, 0, 0)
	first := create(t, a.HTTP+"/opencode/"+m.Token, "ses_plugin")
	require.Equal(t, http.StatusOK, syncRaw(t, a.HTTP, first, itSession).status)
	again := create(t, b.HTTP+"/opencode/"+m.Token, "ses_plugin")
	require.Equal(t, first.ID, again.ID, "the other vat answers the share the first made")
	require.Equal(t, first.Secret, again.Secret)
	require.Equal(t, 2, countShares(t, a))
}
