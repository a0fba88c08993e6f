package pg_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/store/pg"
)

// watch runs st.WatchChanges until t ends and returns the changes it
// reports.
func watch(t *testing.T, st *pg.Store) <-chan sharevat.Change {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ch := make(chan sharevat.Change, 1024)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = st.WatchChanges(ctx, func(c sharevat.Change) { ch <- c })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return ch
}

// next returns the next change of kind on ch, skipping others, failing
// after 5 s.
func next(t *testing.T, ch <-chan sharevat.Change, kind sharevat.ChangeKind) sharevat.Change {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case c := <-ch:
			if c.Kind == kind {
				return c
			}
		case <-deadline:
			t.Fatalf("no change of kind %d within 5s", kind)
		}
	}
}

// TestWatchChanges: a store watching the database hears of the appends,
// revocations, epoch bumps, settings changes and deletions another store
// commits, with the head, the ids and a plausible time.
func TestWatchChanges(t *testing.T) {
	dsn := pgtest.DB(t)
	var lags atomic.Int64
	a := MustOpenDSN(t, dsn)
	b, err := pg.Open(t.Context(), dsn, pg.Options{OnNotice: func(time.Duration) { lags.Add(1) }})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	ch := watch(t, b)
	next(t, ch, sharevat.ChangeSynced)

	createShare(t, a, "s")
	_, err = appendTo(t, a, "s", eventBatch("x", 3))
	require.NoError(t, err)
	c := next(t, ch, sharevat.ChangeAppended)
	assert.Equal(t, sharevat.ShareID("s"), c.Share)
	assert.Equal(t, sharevat.Cursor(3), c.Head)
	assert.WithinDuration(t, time.Now(), c.At, 5*time.Second)
	heads, err := b.Heads(t.Context(), []sharevat.ShareID{"s", "nope"})
	require.NoError(t, err)
	assert.Equal(t, map[sharevat.ShareID]sharevat.Cursor{"s": 3}, heads, "Heads: the heads of the shares that exist")

	require.NoError(t, a.RevokeGrants(t.Context(), []sharevat.GrantID{"s-owner"}, time.Now()))
	assert.Equal(t, sharevat.GrantID("s-owner"), next(t, ch, sharevat.ChangeRevoked).Grant)

	owner := sharevat.Grant{ID: "s-owner2", ShareID: "s", Scope: sharevat.ScopeOwner, Epoch: 2, CreatedAt: time.Now()}
	_, err = a.BumpEpoch(t.Context(), "s", owner)
	require.NoError(t, err)
	assert.Equal(t, sharevat.ShareID("s"), next(t, ch, sharevat.ChangeShare).Share)

	_, err = a.PutSettings(t.Context(), "s", sharevat.Settings{RetainOps: 10})
	require.NoError(t, err)
	assert.Equal(t, sharevat.ShareID("s"), next(t, ch, sharevat.ChangeShare).Share)

	require.NoError(t, a.Delete(t.Context(), "s", time.Now()))
	assert.Equal(t, sharevat.GrantID("s-owner2"), next(t, ch, sharevat.ChangeRevoked).Grant)
	assert.Equal(t, sharevat.ShareID("s"), next(t, ch, sharevat.ChangeShare).Share)
	assert.Positive(t, lags.Load(), "OnNotice saw the lags")
}

// TestWatchReconnects: a listener whose connection the server ends
// reports ChangeLost, then ChangeSynced once it listens again, and
// hears later changes.
func TestWatchReconnects(t *testing.T) {
	dsn := pgtest.DB(t)
	st := MustOpenDSN(t, dsn)
	ch := watch(t, st)
	next(t, ch, sharevat.ChangeSynced)
	createShare(t, st, "s")
	_, err := mustConn(t, dsn).Exec(t.Context(),
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()")
	require.NoError(t, err)
	next(t, ch, sharevat.ChangeLost)
	next(t, ch, sharevat.ChangeSynced)
	_, err = appendTo(t, st, "s", eventBatch("x", 1))
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(1), next(t, ch, sharevat.ChangeAppended).Head)
}
