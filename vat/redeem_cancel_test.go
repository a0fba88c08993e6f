package vat_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"
)

// stallStore wraps a real store: its Grant waits until the caller's
// context ends (or the test ends), then asks the real store, which
// answers the cancellation as it would in production.
type stallStore struct {
	sharevat.Store
	entered chan struct{} // one send per stalled Grant
	release chan struct{} // closed at the end of the test
}

func (s *stallStore) Grant(ctx context.Context, id sharevat.GrantID) (sharevat.Grant, error) {
	s.entered <- struct{}{}
	select {
	case <-ctx.Done():
	case <-s.release:
	}
	return s.Store.Grant(ctx, id)
}

// TestCancelledRedeemIsNoStoreFailure: a redeem whose caller gives up
// while the vat asks the store is the caller's doing: the vat logs no
// ERROR for it (before: `level=ERROR "redeem: store failure"`, so any
// client could fill the log), and answers what every cancelled call
// answers, the same for a valid token and a junk one (before: "cannot
// check the token now", a claim that the store is down).
func TestCancelledRedeemIsNoStoreFailure(t *testing.T) {
	ss := &stallStore{entered: make(chan struct{}), release: make(chan struct{})}
	t.Cleanup(func() { close(ss.release) })
	tv := MustServe(t, sharevat.Limits{}, func(st sharevat.Store) sharevat.Store { ss.Store = st; return ss })
	junk, err := sturdyref.New(rand.Reader)
	require.NoError(t, err)

	conn := tv.MustDial(t)
	ctx, cancel := context.WithCancel(bg)
	redeemed := make(chan error, 1)
	go func() {
		_, err := conn.Redeem(ctx, junk.Reveal())
		redeemed <- err
	}()
	<-ss.entered
	cancel()
	assert.Error(t, <-redeemed, "the caller's own redeem ends with its context")
	require.True(t, tv.Log.WaitFor("redeem: ", time.Minute), "the vat handled the cancelled redeem")
	assert.NotContains(t, tv.Log.String(), "level=ERROR", "a cancelled redeem is no error of the vat's")

	// The answer, through the vat's Go API (the doors' way in): a valid
	// admin token whose grant is not cached and a junk one answer alike.
	for name, token := range map[string]string{"junk": junk.Reveal(), "the admin token": tv.Admin} {
		ctx, cancel := context.WithCancel(bg)
		answered := make(chan error, 1)
		go func() { answered <- tv.Vat.RedeemAdminToken(ctx, token, "test") }()
		<-ss.entered
		cancel()
		err := <-answered
		assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "%s: got %v", name, err)
		assert.Equal(t, "call cancelled", sharevat.ErrorMessage(err), name)
	}
	assert.NotContains(t, tv.Log.String(), "level=ERROR")
}
