package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sharevat/sharevat"
)

var concurrentTests = []test{
	{"DenseCursors", testConcurrentDense},
	{"SameBatch", testConcurrentSameBatch},
	{"ManyShares", testConcurrentShares},
}

const (
	writers          = 8
	batchesPerWriter = 10
	opsPerBatch      = 3
)

// appendConcurrently runs writers goroutines, each appending
// batchesPerWriter batches of opsPerBatch distinct events to share, and
// returns every ack's results (or the first error).
func appendConcurrently(t *testing.T, st sharevat.Store, share string) ([]sharevat.OpResult, error) {
	results := make([][]sharevat.OpResult, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() { results[w], errs[w] = writeBatches(t.Context(), st, share, w) })
	}
	wg.Wait()
	return slices.Concat(results...), errors.Join(errs...)
}

// writeBatches is one writer of appendConcurrently.
func writeBatches(ctx context.Context, st sharevat.Store, share string, w int) ([]sharevat.OpResult, error) {
	var out []sharevat.OpResult
	for i := range batchesPerWriter {
		var ops []sharevat.Op
		for j := range opsPerBatch {
			ops = append(ops, ev(fmt.Sprintf("%s-w%d-b%d-o%d", share, w, i, j)))
		}
		ack, err := st.Append(ctx, sharevat.AppendRequest{
			Share: sharevat.ShareID(share), Batch: batch(1, ops...), Limits: sharevat.DefaultLimits(), Now: at(i),
		})
		if err != nil {
			return out, err
		}
		out = append(out, ack.Results...)
	}
	return out, nil
}

// checkDense fails t unless results are all applied at cursors 1..n.
func checkDense(t *testing.T, results []sharevat.OpResult, n int) {
	t.Helper()
	var cursors []sharevat.Cursor
	for _, r := range results {
		if r.Status != sharevat.StatusApplied {
			t.Fatalf("op %s: %s %s %s, want applied", r.OpID, r.Status, r.Reason, r.Message)
		}
		cursors = append(cursors, r.Cursor)
	}
	slices.Sort(cursors)
	for i, c := range cursors {
		if c != sharevat.Cursor(i+1) {
			t.Fatalf("sorted cursors[%d] = %d, want %d (gap or duplicate)", i, c, i+1)
		}
	}
	if len(cursors) != n {
		t.Fatalf("%d results, want %d", len(cursors), n)
	}
}

func testConcurrentDense(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	results, err := appendConcurrently(t, st, "s")
	ok(t, err)
	n := writers * batchesPerWriter * opsPerBatch
	checkDense(t, results, n)
	entries, head := readAll(t, st, "s")
	if head != sharevat.Cursor(n) || len(entries) != n {
		t.Fatalf("log has %d entries, head %d; want %d", len(entries), head, n)
	}
	byCursor := map[sharevat.Cursor]string{}
	for _, r := range results {
		byCursor[r.Cursor] = r.OpID
	}
	for _, e := range entries {
		if byCursor[e.Cursor] != e.OpID {
			t.Fatalf("entry %d holds op %q; its ack said %q", e.Cursor, e.OpID, byCursor[e.Cursor])
		}
	}
}

// testConcurrentSameBatch: retries racing each other apply each op once.
func testConcurrentSameBatch(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	acks := make([]sharevat.Ack, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			acks[w], errs[w] = st.Append(t.Context(), sharevat.AppendRequest{
				Share: "s", Batch: batch(1, ev("a"), ev("b"), ev("c")), Limits: sharevat.DefaultLimits(), Now: at(1),
			})
		})
	}
	wg.Wait()
	applied := 0
	for w, ack := range acks {
		ok(t, errs[w])
		applied += ack.Applied
		for i, r := range ack.Results {
			if r.Cursor != sharevat.Cursor(i+1) || r.Status == sharevat.StatusRejected {
				t.Errorf("writer %d op %d: %s at %d, want applied or duplicate at %d", w, i, r.Status, r.Cursor, i+1)
			}
		}
	}
	if applied != 3 {
		t.Errorf("%d ops applied across all writers, want 3", applied)
	}
	checkLog(t, st, "s", "a", "b", "c")
}

func testConcurrentShares(t *testing.T, st sharevat.Store) {
	shares := []string{"s1", "s2", "s3"}
	results := make([][]sharevat.OpResult, len(shares))
	errs := make([]error, len(shares))
	var wg sync.WaitGroup
	for _, s := range shares {
		mustShare(t, st, s)
	}
	for i, s := range shares {
		wg.Go(func() { results[i], errs[i] = appendConcurrently(t, st, s) })
	}
	wg.Wait()
	for i := range shares {
		ok(t, errs[i])
		checkDense(t, results[i], writers*batchesPerWriter*opsPerBatch)
	}
}
