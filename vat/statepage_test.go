package vat_test

import (
	"cmp"
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// fillSession appends n ops of a coding session's shape to sh: bodies of
// about bodySize bytes, 30% of them rewriting an earlier key with a newer
// stamp, in batches of 500. It returns how many keys the state holds.
func fillSession(t testing.TB, sh *client.Share, n, bodySize int) int {
	t.Helper()
	ctx := t.Context()
	app, err := sh.Appender(ctx)
	require.NoError(t, err)
	defer app.Release()
	pad := strings.Repeat("x", bodySize)
	var ops []sharevat.Op
	keys := map[string]bool{}
	for i := range n {
		key := fmt.Sprintf("prt_%06d", i)
		if i%10 < 3 && i > 0 {
			key = fmt.Sprintf("prt_%06d", i/2) // a rewrite of an earlier part
		}
		keys[key] = true
		body := fmt.Sprintf(`{"time":{"updated":%d},"text":"%s"}`, 1000+i, pad)
		ops = append(ops, op(fmt.Sprintf("op%06d", i), sharevat.KindPart, key, body))
		if len(ops) == 500 || i == n-1 {
			ack, err := app.Append(ctx, &sharevat.Batch{BatchID: fmt.Sprintf("b%06d", i), Epoch: 1, Ops: ops})
			require.NoError(t, err)
			require.Equal(t, sharevat.StatusApplied, ack.Results[0].Status)
			ops = nil
		}
	}
	return len(keys)
}

// readerOf redeems a read-only token of sh on a new connection.
func readerOf(t *testing.T, tv *testVat, sh *client.Share) *client.Reader {
	t.Helper()
	m, err := sh.Grant(t.Context(), sharevat.ScopeRead, time.Hour, "reader")
	require.NoError(t, err)
	rs := tv.MustRestore(t, m.Token)
	rd, err := rs.Reader(t.Context())
	require.NoError(t, err)
	t.Cleanup(rd.Release)
	return rd
}

// walkPages follows every page of order, calling each for every entity.
func walkPages(t *testing.T, rd *client.Reader, req sharevat.StatePageRequest, each func(*sharevat.Entity)) {
	t.Helper()
	for page, err := range rd.StatePages(t.Context(), req) {
		require.NoError(t, err)
		for i := range page.Entities {
			each(&page.Entities[i])
		}
	}
}

// TestSnapshotPageWalk: through the wire, a walk of every page in either
// order holds exactly the snapshot's entities in that order's sequence.
func TestSnapshotPageWalk(t *testing.T) {
	onEachStore(t, func(t *testing.T, on storeKind) {
		tv := on.serve(t, sharevat.Limits{}, nil)
		sh := tv.MustRestore(t, tv.MustCreate(t, "walk"))
		fillSession(t, sh, 300, 100)
		rd := readerOf(t, tv, sh)
		snap, _, err := rd.Snapshot(t.Context())
		require.NoError(t, err)
		newest := slices.Clone(snap)
		slices.SortFunc(newest, func(a, b sharevat.Entity) int { return cmp.Compare(b.Cursor, a.Cursor) })
		for order, want := range map[sharevat.StateOrder][]sharevat.Entity{sharevat.ByKey: snap, sharevat.ByChange: newest} {
			var got []sharevat.Entity
			walkPages(t, rd, sharevat.StatePageRequest{Order: order, MaxCount: 17, MaxBytes: 1500}, func(e *sharevat.Entity) { got = append(got, *e) })
			require.Equal(t, len(want), len(got), "order %d", order)
			for i := range want {
				assert.Equal(t, want[i].Key, got[i].Key, "order %d, entity %d", order, i)
				assert.Equal(t, want[i].Cursor, got[i].Cursor, "order %d, entity %d", order, i)
			}
		}
	})
}

// allocated is how many bytes the process allocated while fn ran.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestBigStateBounded: on a 50,000-op share (~145 MB of ops, ~100 MB of
// state), Reader.snapshot is refused having read no more than about the
// read budget (it decoded the whole state before: ~300 MB allocated);
// a walk of every page allocates at most a few budgets per page, and the
// heap grows less than 128 MiB; a read-token holder's parallel snapshot
// and snapshotPage calls cost O(budget) each, not O(state).
func TestBigStateBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a 50,000-op share")
	}
	tv := MustServe(t, sharevat.Limits{}, nil)
	sh := tv.MustRestore(t, tv.MustCreate(t, "big"))
	const ops, budget = 50_000, 8 << 20
	keys := fillSession(t, sh, ops, 2900)
	rd := readerOf(t, tv, sh)

	t.Run("snapshot refused early", func(t *testing.T) {
		var err error
		n := allocated(func() { _, _, err = rd.Snapshot(t.Context()) })
		require.Equal(t, sharevat.ETooLarge, sharevat.ErrorCode(err), "%v", err)
		t.Logf("refused snapshot: %d MiB allocated", n>>20)
		assert.Less(t, n, uint64(4*budget), "the refused snapshot allocated %d bytes", n)
	})

	t.Run("every page", func(t *testing.T) {
		// The heap's high-water mark counts garbage not yet collected too:
		// with a GC target of 25% over the live heap it is close to what
		// the walk holds at once.
		defer debug.SetGCPercent(debug.SetGCPercent(25))
		for _, order := range []sharevat.StateOrder{sharevat.ByKey, sharevat.ByChange} {
			runtime.GC()
			var base, ms runtime.MemStats
			runtime.ReadMemStats(&base)
			high, worst, count, pages := base.HeapAlloc, uint64(0), 0, 0
			req := sharevat.StatePageRequest{Order: order}
			for done := false; !done; pages++ {
				var page sharevat.StatePage
				var err error
				n := allocated(func() { page, err = rd.SnapshotPage(t.Context(), req) })
				require.NoError(t, err)
				worst = max(worst, n)
				runtime.ReadMemStats(&ms)
				high = max(high, ms.HeapAlloc)
				count += len(page.Entities)
				req.After, done = page.Next, page.Done
			}
			growth := high - base.HeapAlloc
			t.Logf("order %d: %d entities in %d pages; at most %d MiB allocated by a page; heap high-water +%d MiB", order, count, pages, worst>>20, growth>>20)
			assert.Equal(t, keys, count, "every entity once")
			assert.Less(t, worst, uint64(4*budget), "a page allocated %d bytes", worst)
			assert.Less(t, growth, uint64(128<<20), "the heap grew %d bytes during the walk", growth)
		}
	})

	t.Run("hostile parallel calls", func(t *testing.T) {
		const callers, each = 8, 3
		var wg sync.WaitGroup
		n := allocated(func() {
			for c := range callers {
				wg.Go(func() {
					for i := range each {
						ctx, cancel := context.WithCancel(t.Context())
						if (c+i)%2 == 0 {
							_, _, err := rd.Snapshot(ctx)
							assert.Equal(t, sharevat.ETooLarge, sharevat.ErrorCode(err))
						} else {
							_, err := rd.SnapshotPage(ctx, sharevat.StatePageRequest{Order: sharevat.StateOrder(i % 2)})
							assert.True(t, err == nil || sharevat.ErrorCode(err) == sharevat.ETooLarge, "%v", err)
						}
						cancel()
					}
				})
			}
			wg.Wait()
		})
		per := n / (callers * each)
		t.Logf("%d parallel snapshot/snapshotPage calls: %d MiB allocated, %d MiB per call", callers*each, n>>20, per>>20)
		assert.Less(t, per, uint64(4*budget), "a call allocated %d bytes on average", per)
		_, _, err := rd.Read(t.Context(), 0, 1)
		require.NoError(t, err, "the vat still serves")
	})
}
