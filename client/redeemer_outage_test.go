package client_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sharevat"
	"sharevat/client"
	"sharevat/internal/vattest"
)

// outageStore wraps the real store; while down is set, the lookups a
// redeem makes fail as a store whose database cannot be reached does.
type outageStore struct {
	sharevat.Store
	down atomic.Bool
}

var errOutage = sharevat.Errorf(sharevat.EUnavailable, "injected: the database cannot be reached")

func (o *outageStore) Grant(ctx context.Context, id sharevat.GrantID) (sharevat.Grant, error) {
	if o.down.Load() {
		return sharevat.Grant{}, errOutage
	}
	return o.Store.Grant(ctx, id)
}

func (o *outageStore) Share(ctx context.Context, id sharevat.ShareID) (sharevat.Share, error) {
	if o.down.Load() {
		return sharevat.Share{}, errOutage
	}
	return o.Store.Share(ctx, id)
}

// TestRedeemerRetriesStoreOutage: while the server's store is down, the
// Redeemer's redeem answers unavailable; the Redeemer retries it with
// backoff (OnRetry sees unavailable, never unauthorized) instead of
// giving up the token, and succeeds once the store is back. The store
// comes back from the first OnRetry, so nothing waits on a clock.
func TestRedeemerRetriesStoreOutage(t *testing.T) {
	var st *outageStore
	srv := vattest.Start(t, vattest.Options{Wrap: func(s sharevat.Store) sharevat.Store {
		st = &outageStore{Store: s}
		return st
	}})
	token := srv.MustCreate(t, "outage")
	st.down.Store(true)

	var retried []error
	opts := &client.RedeemerOptions{MinBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond,
		OnRetry: func(err error, _ time.Duration) {
			retried = append(retried, err)
			if len(retried) == 3 {
				st.down.Store(false)
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
