package vat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/vat"
)

// TestCompactKeepsExactlyOnce: after a compaction, a late retry of a
// dropped op is still answered duplicate at its original cursor, reads
// and subscriptions from before the earliest cursor answer compacted
// naming it, later ones work, the snapshot is unchanged, and Info says
// the earliest cursor. Compact needs admin; past head+1 is invalid.
func TestCompactKeepsExactlyOnce(t *testing.T) { onEachStore(t, testCompactKeepsExactlyOnce) }

func testCompactKeepsExactlyOnce(t *testing.T, on storeKind) {
	tv := on.serve(t, sharevat.Limits{}, nil)
	a := tv.MustRestore(t, tv.MustCreate(t, "compact"))
	app, err := a.Appender(bg)
	require.NoError(t, err)
	batch := &sharevat.Batch{BatchID: "b1", Epoch: 1, Ops: []sharevat.Op{
		op("m1", "message", "msg_1", `{"text":"one"}`),
		op("m2", "message", "msg_2", `{"text":"two"}`),
		op("m1b", "message", "msg_1", `{"text":"one, edited"}`),
		op("e1", "event", "", `{}`),
		op("e2", "event", "", `{}`),
	}}
	_, err = app.Append(bg, batch)
	require.NoError(t, err)
	rd, err := a.Reader(bg)
	require.NoError(t, err)
	before, cur, err := rd.Snapshot(bg)
	require.NoError(t, err)

	reader := tv.MustRestore(t, mustGrant(t, a, sharevat.ScopeRead, 0, "reader").Token)
	_, err = reader.Compact(bg, 4)
	isCode(t, err, sharevat.ErrPermissionDenied, "compact without admin")
	_, err = a.Compact(bg, 7)
	isCode(t, err, sharevat.ErrInvalid, "past head+1")

	earliest, err := a.Compact(bg, 4)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(4), earliest)
	info, _, err := a.Fetch(bg)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(4), info.Earliest)

	ack, err := app.Append(bg, &sharevat.Batch{BatchID: "retry", Epoch: 1, Ops: []sharevat.Op{op("m1", "message", "msg_1", `{"text":"one"}`)}})
	require.NoError(t, err)
	assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status, "a compacted op id is still known")
	assert.Equal(t, sharevat.Cursor(1), ack.Results[0].Cursor, "at its original cursor")

	_, _, err = rd.Read(bg, 0, 0)
	isCode(t, err, sharevat.ErrCompacted, "a read from before the earliest cursor")
	assert.Contains(t, sharevat.ErrorMessage(err), "4", "the answer names the earliest cursor")
	got, _, err := rd.Read(bg, 3, 0)
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, "e1", got[0].OpID)
	_, err = rd.Subscribe(bg, 1, func([]sharevat.Entry) error { return nil })
	isCode(t, err, sharevat.ErrCompacted, "a subscription from before the earliest cursor")
	after, cur2, err := rd.Snapshot(bg)
	require.NoError(t, err)
	assert.Equal(t, before, after, "the state is exact")
	assert.Equal(t, cur, cur2)

	earliest, err = a.Compact(bg, 2)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(4), earliest, "compacting below the earliest changes nothing")
	earliest, err = a.Compact(bg, 6)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(6), earliest, "head+1 drops every op")
	got, head, err := rd.Read(bg, 5, 0)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, sharevat.Cursor(5), head)
}

// TestSubscriptionOvertakenByCompaction: a subscription lagging behind a
// compaction ends with end("compacted", …) naming the earliest cursor,
// after every op it could still push.
func TestSubscriptionOvertakenByCompaction(t *testing.T) {
	onEachStore(t, testSubscriptionOvertakenByCompaction)
}

func testSubscriptionOvertakenByCompaction(t *testing.T, on storeKind) {
	tv := on.serveConfig(t, nil, func(c *vat.Config) { c.Quotas.PushWindow = 1 })
	owner := tv.MustCreate(t, "overtaken")
	a := tv.MustRestore(t, owner)
	appendN(t, a, "a", 600, 200, `{}`)
	gate := make(chan struct{})
	sink := newRecSink(gate)
	sub, err := rawSubscribe(mustRawReader(t, tv, owner), 0, sink)
	require.NoError(t, err)
	defer sub.Release()
	sink.waitFor(t, 256) // the first push is held: the next cannot go
	_, err = a.Compact(bg, 600)
	require.NoError(t, err)
	close(gate)
	end := sink.waitEnd(t)
	assert.Equal(t, "compacted", end[0])
	assert.Contains(t, end[1], "600")
	assert.Less(t, len(sink.got()), 600, "it ended before the compacted ops")
}
