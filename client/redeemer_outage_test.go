package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestRedeemerRetriesStoreOutage: while the server's store is down, the
// Redeemer's redeem answers unavailable; the Redeemer retries it with
// backoff (OnRetry sees unavailable, never unauthorized) instead of
// giving up the token, and succeeds once the store is back. The store
// comes back from the first OnRetry, so nothing waits on a clock.
func TestRedeemerRetriesStoreOutage(t *testing.T) {
	st := &vattest.DownStore{}
	srv := vattest.Start(t, vattest.Options{Wrap: st.Wrap})
	token := srv.MustCreate(t, "outage")
	st.Down()

	var retried []error
	opts := &client.RedeemerOptions{MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
		OnRetry: func(err error, _ time.Duration) {
			retried = append(retried, err)
			if len(retried) == 3 {
				st.Up()
			}
		}}
	r := client.NewRedeemer(srv.URL, token, opts)
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sh, err := r.Share(ctx)
	require.NoError(t, err, "the Redeemer redeems the token once the store is back")
	assert.Equal(t, sharevat.ScopeOwner, sh.Access.Scope)
	require.Len(t, retried, 3, "one retry per failed redeem while the store was down")
	for _, err := range retried {
		assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "got %v", err)
		assert.False(t, client.IsPermanent(err))
	}
}
