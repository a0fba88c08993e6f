package webvat_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"sharevat"
	"sharevat/internal/vattest"
)

// downStore wraps the real store; while down is set, the lookups a
// redeem makes fail as a store that cannot be reached does.
type downStore struct {
	sharevat.Store
	down atomic.Bool
}

var errDown = sharevat.Errorf(sharevat.EUnavailable, "injected: the store cannot be reached")

func (d *downStore) Grant(ctx context.Context, id sharevat.GrantID) (sharevat.Grant, error) {
	if d.down.Load() {
		return sharevat.Grant{}, errDown
	}
	return d.Store.Grant(ctx, id)
}

func (d *downStore) Share(ctx context.Context, id sharevat.ShareID) (sharevat.Share, error) {
	if d.down.Load() {
		return sharevat.Share{}, errDown
	}
	return d.Store.Share(ctx, id)
}

// TestRestoreDuringStoreOutage: over Cap'n Web too, a valid token's
// restore while the store is down answers "unavailable: cannot check the
// token now …", not unauthorized; once the store is back it restores.
func TestRestoreDuringStoreOutage(t *testing.T) {
	var ds *downStore
	e := start(t, vattest.Options{Wrap: func(s sharevat.Store) sharevat.Store {
		ds = &downStore{Store: s}
		return ds
	}})
	good := e.srv.MustCreate(t, "t")
	vault := e.dial(t)
	ds.down.Store(true)
	_, err := call(vault, "restore", good)
	code, msg := codeOf(t, err)
	assert.Equal(t, "unavailable", code)
	assert.Equal(t, sharevat.ErrCannotCheckToken.Error(), msg)
	ds.down.Store(false)
	e.restore(t, good)
}
