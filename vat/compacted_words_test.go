package vat_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/vat"
)

// TestCompactedAnswersAgree: after a compaction to cursor 5, a read, a
// subscription and a subscription the compaction overtakes all answer
// compacted with the same words, the store's: the earliest cursor and
// the cursor to read after (4, since read and subscribe take the cursor
// to read after), and reading after it works; a fork too early names the
// earliest cursor it may fork at (4), and forking there works.
func TestCompactedAnswersAgree(t *testing.T) { onEachStore(t, testCompactedAnswersAgree) }

func testCompactedAnswersAgree(t *testing.T, on storeKind) {
	tv := on.serveConfig(t, nil, func(c *vat.Config) { c.Quotas.PushWindow = 1 })
	owner := tv.MustCreate(t, "words")
	a := tv.MustRestore(t, owner)
	appendN(t, a, "a", 600, 200, `{}`)
	gate := make(chan struct{})
	sink := newRecSink(gate)
	sub, err := rawSubscribe(mustRawReader(t, tv, owner), 0, sink)
	require.NoError(t, err)
	defer sub.Release()
	sink.waitFor(t, 256) // held: the subscription lags behind what follows

	_, err = a.Compact(bg, 5)
	require.NoError(t, err)
	const want = "ops before cursor 5 were compacted; read after cursor 4, or take the snapshot and follow from its cursor"
	rd, err := a.Reader(bg)
	require.NoError(t, err)
	_, _, err = rd.Read(bg, 3, 0)
	isCode(t, err, sharevat.ErrCompacted, "a read from before the earliest cursor")
	assert.Equal(t, want, sharevat.ErrorMessage(err), "read")
	_, err = rd.Subscribe(bg, 0, func([]sharevat.Entry) error { return nil })
	isCode(t, err, sharevat.ErrCompacted, "a subscription from before the earliest cursor")
	assert.Equal(t, want, sharevat.ErrorMessage(err), "subscribe")
	got, _, err := rd.Read(bg, 4, 1)
	require.NoError(t, err, "reading after cursor 4 works, as the answer says")
	assert.Equal(t, sharevat.Cursor(5), got[0].Cursor)

	_, err = a.Compact(bg, 600)
	require.NoError(t, err)
	close(gate)
	end := sink.waitEnd(t)
	assert.Equal(t, "compacted", end[0])
	assert.Equal(t, "ops before cursor 600 were compacted; read after cursor 599, or take the snapshot and follow from its cursor", end[1],
		"an overtaken subscription")

	_, _, err = a.Fork(bg, 598, sharevat.MetaPatch{})
	isCode(t, err, sharevat.ErrCompacted, "a fork before earliest-1")
	assert.Equal(t, "ops before cursor 600 were compacted; fork at cursor 599 or later", sharevat.ErrorMessage(err), "fork")
	_, _, err = a.Fork(bg, 599, sharevat.MetaPatch{})
	require.NoError(t, err, "forking at cursor 599 works, as the answer says")
}
