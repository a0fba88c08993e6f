package vat_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// blockingStore wraps the real store: Append waits until released or its
// context ends, and signals when it starts waiting.
type blockingStore struct {
	sharevat.Store
	entered chan struct{}
	release chan struct{}
}

func (b *blockingStore) Append(ctx context.Context, req sharevat.AppendRequest) (sharevat.Ack, error) {
	b.entered <- struct{}{}
	select {
	case <-b.release:
	case <-ctx.Done():
		return sharevat.Ack{}, context.Cause(ctx)
	}
	return b.Store.Append(ctx, req)
}

// TestRevokeCancelsInFlightCall: an append of B's that is in flight when
// A revokes B is cancelled and answers revoked; nothing is applied.
func TestRevokeCancelsInFlightCall(t *testing.T) { onEachStore(t, testRevokeCancelsInFlightCall) }

func testRevokeCancelsInFlightCall(t *testing.T, on storeKind) {
	bs := &blockingStore{entered: make(chan struct{}, 1), release: make(chan struct{})}
	tv := on.serve(t, sharevat.Limits{}, func(s sharevat.Store) sharevat.Store { bs.Store = s; return bs })
	a := tv.MustRestore(t, tv.MustCreate(t, "inflight"))
	bm := mustGrant(t, a, sharevat.ScopeAppend, 0, "B")
	b := tv.MustRestore(t, bm.Token)
	app, err := b.Appender(bg)
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() {
		_, err := app.Append(bg, eventBatch(1, "b1"))
		done <- err
	}()
	<-bs.entered
	require.NoError(t, a.Revoke(bg, bm.GrantID))
	isCode(t, <-done, sharevat.ErrRevoked, "the in-flight append")
	close(bs.release)

	rd, err := a.Reader(bg)
	require.NoError(t, err)
	entries, _, err := rd.Read(bg, 0, 0)
	require.NoError(t, err)
	assert.Empty(t, entries, "the cancelled append applied nothing")
}

// TestNoCallSucceedsAfterRevokeReturns: B calls in a loop on two
// connections while A revokes B. Invariant: no call of B's that started
// after A's revoke call returned succeeds.
func TestNoCallSucceedsAfterRevokeReturns(t *testing.T) {
	onEachStore(t, testNoCallSucceedsAfterRevokeReturns)
}

func testNoCallSucceedsAfterRevokeReturns(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "race"))
	bm := mustGrant(t, a, sharevat.ScopeRead|sharevat.ScopeDelegate, 0, "B")
	var revoked atomic.Bool
	var wg sync.WaitGroup
	var after, violations atomic.Int64
	for i := 0; i < 2; i++ {
		b := tv.MustRestore(t, bm.Token)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < 20; {
				startedAfter := revoked.Load()
				_, _, err := b.Fetch(bg)
				if startedAfter {
					after.Add(1)
					done++
					if err == nil {
						violations.Add(1)
					}
				}
			}
		}()
	}
	appendEvents(t, a, "x") // let the readers get going
	require.NoError(t, a.Revoke(bg, bm.GrantID))
	revoked.Store(true)
	wg.Wait()
	assert.Equal(t, int64(40), after.Load())
	assert.Zero(t, violations.Load(), "calls that started after the revoke returned succeeded")
}
