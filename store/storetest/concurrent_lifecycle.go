package storetest

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/sharevat/sharevat"
)

var concurrentLifecycleTests = []test{
	{"CompactAndForkWhileAppending", testCompactForkWhileAppending},
}

// testCompactForkWhileAppending runs writers that upsert and delete
// entities while one goroutine compacts all but the last few ops and
// forks at the head, again and again. Then every op was applied once,
// the state is the replay of the acknowledged log, each fork's state is
// the replay up to its fork cursor, and every op appended again is a
// duplicate at its cursor, compacted or not.
func testCompactForkWhileAppending(t *testing.T, st sharevat.Store) {
	mustShare(t, st, "s")
	sent := make([][]sharevat.Op, writers)
	acks := make([][]sharevat.OpResult, writers)
	errs := make([]error, writers+1)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() { sent[w], acks[w], errs[w] = writeEntities(t, st, w) })
	}
	done := make(chan struct{})
	var forks []sharevat.Share
	go func() { defer close(done); forks, errs[writers] = compactAndFork(t, st, 6) }()
	wg.Wait()
	<-done
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	log := modelLog(t, sent, acks)
	checkState(t, st, "s", stateAt(log, sharevat.Cursor(len(log))), sharevat.Cursor(len(log)))
	for _, f := range forks {
		checkState(t, st, string(f.ID), stateAt(log, f.ForkCursor), f.ForkCursor)
	}
	for w := range writers {
		b := batch(1, sent[w]...)
		ack := mustAppend(t, st, "s", b)
		for i, r := range ack.Results {
			if r.Status != sharevat.StatusDuplicate || r.Cursor != acks[w][i].Cursor {
				t.Fatalf("writer %d op %d again: %s at %d, want duplicate at %d", w, i, r.Status, r.Cursor, acks[w][i].Cursor)
			}
		}
	}
}

// writeEntities is one writer: batches upserting and deleting its own
// and shared keys, one by one.
func writeEntities(t *testing.T, st sharevat.Store, w int) ([]sharevat.Op, []sharevat.OpResult, error) {
	var sent []sharevat.Op
	var out []sharevat.OpResult
	for i := range batchesPerWriter {
		id := fmt.Sprintf("w%d-%d", w, i)
		ops := []sharevat.Op{
			put(id+"a", sharevat.KindMessage, fmt.Sprint("shared", i%3), fmt.Sprintf(`{"w":%d,"i":%d}`, w, i)),
			put(id+"b", sharevat.KindPart, fmt.Sprintf("own%d", w), fmt.Sprintf(`{"i":%d}`, i)),
		}
		if i%4 == 3 {
			ops = append(ops, del(id+"c", sharevat.KindMessage, fmt.Sprint("shared", (i+1)%3)))
		}
		ack, err := st.Append(t.Context(), sharevat.AppendRequest{Share: "s", Batch: batch(1, ops...), Limits: sharevat.DefaultLimits(), Now: at(100)})
		if err != nil {
			return sent, out, err
		}
		sent, out = append(sent, ops...), append(out, ack.Results...)
	}
	return sent, out, nil
}

// compactAndFork compacts all but the last keep ops and forks at the
// head, rounds times, while the writers run.
func compactAndFork(t *testing.T, st sharevat.Store, rounds int) ([]sharevat.Share, error) {
	var forks []sharevat.Share
	for i := range rounds {
		s, err := st.Share(t.Context(), "s")
		if err != nil {
			return forks, err
		}
		const keep = 5
		if s.Head > keep {
			if _, err := st.Compact(t.Context(), "s", s.Head-keep+1); err != nil {
				return forks, err
			}
		}
		c, owner := forkShare(fmt.Sprintf("f%d", i))
		f, err := st.Fork(t.Context(), "s", s.Head, c, owner)
		if err != nil {
			return forks, err
		}
		forks = append(forks, f)
	}
	return forks, nil
}

// modelLog rebuilds the log from what was sent and the cursors it was
// acknowledged at; every op must have been applied, at cursors 1..n.
func modelLog(t *testing.T, sent [][]sharevat.Op, acks [][]sharevat.OpResult) []sharevat.Entry {
	t.Helper()
	var log []sharevat.Entry
	for w := range sent {
		for i, op := range sent[w] {
			r := acks[w][i]
			if r.Status != sharevat.StatusApplied {
				t.Fatalf("op %s: %s (%s), want applied", op.OpID, r.Status, r.Message)
			}
			log = append(log, sharevat.Entry{Cursor: r.Cursor, Kind: op.Kind, Key: op.Key, Body: op.Body, Delete: op.Delete, At: at(100)})
		}
	}
	slices.SortFunc(log, func(a, b sharevat.Entry) int { return int(a.Cursor) - int(b.Cursor) })
	for i, e := range log {
		if e.Cursor != sharevat.Cursor(i+1) {
			t.Fatalf("cursors are not dense: entry %d at cursor %d", i, e.Cursor)
		}
	}
	return log
}
