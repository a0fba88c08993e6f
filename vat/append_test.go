package vat_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
)

// TestAppendEndToEnd is the acceptance scenario of the foundation issue,
// over a real WebSocket: three batches (the third a retry of the first),
// ops that hit every rejection reason, then read and snapshot.
func TestAppendEndToEnd(t *testing.T) { onEachStore(t, testAppendEndToEnd) }

func testAppendEndToEnd(t *testing.T, on storeKind) {
	ctx := context.Background()
	lim := sharevat.DefaultLimits()
	lim.MaxBodyBytes = 64
	tv := on.serve(t, lim, nil)
	sh := tv.MustRestore(t, tv.MustCreate(t, "e2e"))
	app, err := sh.Appender(ctx)
	require.NoError(t, err)
	epoch := sh.Access.Epoch
	require.Equal(t, sharevat.Epoch(1), epoch)

	first := &sharevat.Batch{BatchID: "b1", Epoch: epoch, Ops: []sharevat.Op{
		op("m1", "message", "m1", `{"role":"user","text":"hi"}`),
		op("p1", "part", "p1", `{"text":"part one"}`),
		op("e1", "event", "", `{"type":"started"}`),
	}}
	ack, err := app.Append(ctx, first)
	require.NoError(t, err)
	assertResults(t, ack, []want{{sharevat.StatusApplied, 1, 0}, {sharevat.StatusApplied, 2, 0}, {sharevat.StatusApplied, 3, 0}})
	assert.Equal(t, sharevat.Cursor(3), ack.Head)

	second := &sharevat.Batch{BatchID: "b2", Epoch: epoch, Ops: []sharevat.Op{
		op("m1", "message", "m1", `{"role":"user","text":"changed"}`),                 // id reused, other content
		withDeps(op("p2", "part", "p2", `{"text":"two"}`), "nope"),                    // missing dependency
		withExpect(op("m2", "message", "m2", `{"text":"x"}`), 1),                      // head is 3, not 1
		op("x1", "mystery", "k", `{}`),                                                // unknown kind
		op("x2", "message", "k", `not json`),                                          // body not JSON
		op("x3", "message", "", `{}`),                                                 // state kind without key
		op("x4", "event", "", `{"pad":"`+strings.Repeat("x", 64)+`"}`),                // body over the 64-byte limit
		withDeps(withExpect(op("m3", "message", "m1", `{"text":"edited"}`), 3), "m1"), // applied at 4
		{OpID: "d1", Kind: "part", Key: "p1", Delete: true},                           // applied at 5
	}}
	ack, err = app.Append(ctx, second)
	require.NoError(t, err)
	assertResults(t, ack, []want{
		{sharevat.StatusRejected, 1, sharevat.ReasonIDReused},
		{sharevat.StatusRejected, 0, sharevat.ReasonMissingDependency},
		{sharevat.StatusRejected, 0, sharevat.ReasonConflict},
		{sharevat.StatusRejected, 0, sharevat.ReasonInvalid},
		{sharevat.StatusRejected, 0, sharevat.ReasonInvalid},
		{sharevat.StatusRejected, 0, sharevat.ReasonInvalid},
		{sharevat.StatusRejected, 0, sharevat.ReasonTooLarge},
		{sharevat.StatusApplied, 4, 0},
		{sharevat.StatusApplied, 5, 0},
	})
	assert.Equal(t, 2, ack.Applied)
	assert.Equal(t, 7, ack.Rejected)

	stale := &sharevat.Batch{BatchID: "b-stale", Epoch: epoch + 1, Ops: []sharevat.Op{op("s1", "event", "", `{}`)}}
	ack, err = app.Append(ctx, stale)
	require.NoError(t, err)
	assertResults(t, ack, []want{{sharevat.StatusRejected, 0, sharevat.ReasonStaleEpoch}})

	// The retry: every op comes back duplicate with its original cursor,
	// even in a batch whose epoch is now wrong (duplicates are checked first).
	retry := *first
	retry.BatchID, retry.Epoch = "b1-retry", epoch+1
	ack, err = app.Append(ctx, &retry)
	require.NoError(t, err)
	assertResults(t, ack, []want{{sharevat.StatusDuplicate, 1, 0}, {sharevat.StatusDuplicate, 2, 0}, {sharevat.StatusDuplicate, 3, 0}})
	assert.Equal(t, 3, ack.Duplicates)
	assert.Equal(t, sharevat.Cursor(5), ack.Head)

	rd, err := sh.Reader(ctx)
	require.NoError(t, err)
	entries, head, err := rd.Read(ctx, 0, 0)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(5), head)
	var ids []string
	for i, e := range entries {
		assert.Equal(t, sharevat.Cursor(i+1), e.Cursor, "entries in cursor order")
		ids = append(ids, e.OpID)
	}
	assert.Equal(t, []string{"m1", "p1", "e1", "m3", "d1"}, ids, "read returns exactly the applied ops")

	ents, cur, err := rd.Snapshot(ctx)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(5), cur)
	require.Len(t, ents, 1, "p1 deleted, events not in state: only m1 remains")
	assert.Equal(t, "message", ents[0].Kind)
	assert.Equal(t, "m1", ents[0].Key)
	assert.JSONEq(t, `{"text":"edited"}`, string(ents[0].Body))
	assert.Equal(t, sharevat.Cursor(4), ents[0].Cursor)
}

type want struct {
	status sharevat.OpStatus
	cursor sharevat.Cursor
	reason sharevat.Reason
}

func assertResults(t *testing.T, ack sharevat.Ack, wants []want) {
	t.Helper()
	require.Len(t, ack.Results, len(wants))
	for i, w := range wants {
		r := ack.Results[i]
		got := want{r.Status, r.Cursor, r.Reason}
		assert.Equal(t, w, got, "op %d (%s): %s", i, r.OpID, r.Message)
		if r.Status == sharevat.StatusRejected {
			assert.NotEmpty(t, r.Message, "op %d: rejection says why", i)
		}
	}
}

func withDeps(o sharevat.Op, deps ...string) sharevat.Op {
	o.DependsOn = deps
	return o
}

func withExpect(o sharevat.Op, c sharevat.Cursor) sharevat.Op {
	o.ExpectedCursor = cursorp(c)
	return o
}

// TestAppendBatchLimits: a batch over the ops or bytes limit is rejected
// op by op with tooLarge, and the connection keeps working.
func TestAppendBatchLimits(t *testing.T) { onEachStore(t, testAppendBatchLimits) }

func testAppendBatchLimits(t *testing.T, on storeKind) {
	ctx := context.Background()
	lim := sharevat.DefaultLimits()
	lim.MaxOpsPerBatch = 2
	tv := on.serve(t, lim, nil)
	sh := tv.MustRestore(t, tv.MustCreate(t, "limits"))
	app, err := sh.Appender(ctx)
	require.NoError(t, err)
	big := &sharevat.Batch{BatchID: "big", Epoch: 1, Ops: []sharevat.Op{
		op("a", "event", "", `{}`), op("b", "event", "", `{}`), op("c", "event", "", `{}`),
	}}
	ack, err := app.Append(ctx, big)
	require.NoError(t, err)
	assert.Equal(t, 3, ack.Rejected)
	for _, r := range ack.Results {
		assert.Equal(t, sharevat.ReasonTooLarge, r.Reason)
	}
	ack, err = app.Append(ctx, &sharevat.Batch{BatchID: "ok", Epoch: 1, Ops: big.Ops[:2]})
	require.NoError(t, err)
	assert.Equal(t, 2, ack.Applied)
}
