package vat_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/schema"
	"github.com/sharevat/sharevat/vat"
)

// TestSubscriptionQuotas: one token cannot take more than its grant's
// quota of subscriptions, from any number of connections, and one share's
// readers cannot take more than the share's; other tokens and other
// shares are unaffected, and a released subscription frees its slot.
func TestSubscriptionQuotas(t *testing.T) {
	tv := MustServeConfig(t, nil, func(c *vat.Config) {
		c.Quotas.MaxGrantSubscriptions, c.Quotas.MaxShareSubscriptions = 3, 5
	})
	owner := tv.MustCreate(t, "quota")
	sh := tv.MustRestore(t, owner)
	reader := mustGrant(t, sh, sharevat.ScopeRead, 0, "r").Token
	var subs []schema.Subscription
	var sinks []*recSink
	t.Cleanup(func() {
		for _, s := range subs {
			s.Release()
		}
	})
	subscribe := func(token string) error {
		sink := newRecSink(nil)
		s, err := rawSubscribe(mustRawReader(t, tv, token), 0, sink)
		if err == nil {
			subs, sinks = append(subs, s), append(sinks, sink)
		}
		return err
	}
	for i := range 3 {
		require.NoError(t, subscribe(reader), "subscription %d of the reader token (a new connection each)", i+1)
	}
	isCode(t, subscribe(reader), sharevat.ErrTooLarge, "a 4th with the same token, from a new connection")
	require.NoError(t, subscribe(owner), "another token of the share")
	require.NoError(t, subscribe(owner), "another token of the share")
	isCode(t, subscribe(owner), sharevat.ErrTooLarge, "a 6th on the share")
	require.NoError(t, subscribe(tv.MustCreate(t, "other")), "another share is not affected")

	subs[0].Release()
	sinks[0].waitShut(t) // the vat releases the sink after it frees the slot
	subs = subs[1:]
	require.NoError(t, subscribe(reader), "the released slot is free again")
}
