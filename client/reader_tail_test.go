package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// tailed is what one Reader.Tail returned.
type tailed struct {
	cursor sharevat.Cursor
	err    error
}

// readerTailAsync runs rd.Tail in the background; the channel gets what
// it returned.
func readerTailAsync(ctx context.Context, rd *client.Reader, from sharevat.Cursor, h func(sharevat.Entry) error) <-chan tailed {
	out := make(chan tailed, 1)
	go func() {
		c, err := rd.Tail(ctx, from, h)
		out <- tailed{c, err}
	}()
	return out
}

// TestReaderTailStopsWithItsConnection: Reader.Tail on a Reader already
// held follows backlog and live ops, and returns when its connection is
// cut. Invariants: it returns ErrUnavailable (not permanent) with the
// cursor of the last op delivered, and tailing again from that cursor on
// a new connection delivers exactly the rest; a handler error is returned
// as is, with the cursor of the last op the handler accepted.
func TestReaderTailStopsWithItsConnection(t *testing.T) {
	tv := mustServeSubVat(t)
	tv.appendEvents(t, "backlog", 30, 10)
	got := newSeen(10)
	res := readerTailAsync(context.Background(), tv.reader(t, tv.Proxy, tv.Owner), 10, func(e sharevat.Entry) error { got.add(e); return nil })
	got.waitFor(t, 30)
	tv.appendEvents(t, "live", 5, 5)
	got.waitFor(t, 35)
	tv.proxy.Cut()
	r := tailReturn(t, res)
	assert.ErrorIs(t, r.err, sharevat.ErrUnavailable)
	assert.False(t, client.IsPermanent(r.err))
	assert.Equal(t, sharevat.Cursor(35), r.cursor, "the last op delivered")

	tv.appendEvents(t, "more", 5, 5)
	stop := errors.New("stop here")
	c, err := tv.reader(t, tv.URL, tv.Owner).Tail(context.Background(), r.cursor, func(e sharevat.Entry) error {
		got.add(e)
		if e.Cursor == 38 {
			return stop
		}
		return nil
	})
	assert.ErrorIs(t, err, stop, "the handler's error")
	assert.Equal(t, sharevat.Cursor(37), c, "the last op the handler accepted")
	got.assertExactly(t, 10, 38)
}

// TestReaderTailEnds: Reader.Tail returns ctx.Err() when ctx ends, and
// ErrRevoked when its grant is revoked; an invalid start is refused.
// Invariant: it never returns nil.
func TestReaderTailEnds(t *testing.T) {
	tv := mustServeSubVat(t)
	ctx := context.Background()
	tv.appendEvents(t, "a", 3, 3)

	cctx, cancel := context.WithCancel(ctx)
	got := newSeen(0)
	res := readerTailAsync(cctx, tv.reader(t, tv.URL, tv.Owner), 0, func(e sharevat.Entry) error { got.add(e); return nil })
	got.waitFor(t, 3)
	cancel()
	r := tailReturn(t, res)
	assert.ErrorIs(t, r.err, context.Canceled)
	assert.Equal(t, sharevat.Cursor(3), r.cursor)

	m, err := tv.Share.Grant(ctx, sharevat.ScopeRead, 0, "B")
	require.NoError(t, err)
	got = newSeen(0)
	res = readerTailAsync(ctx, tv.reader(t, tv.URL, m.Token), 0, func(e sharevat.Entry) error { got.add(e); return nil })
	got.waitFor(t, 3)
	require.NoError(t, tv.Share.Revoke(ctx, m.GrantID))
	r = tailReturn(t, res)
	assert.ErrorIs(t, r.err, sharevat.ErrRevoked)
	assert.Equal(t, sharevat.Cursor(3), r.cursor)

	c, err := tv.reader(t, tv.URL, tv.Owner).Tail(ctx, 9, func(sharevat.Entry) error { return nil })
	assert.ErrorIs(t, err, sharevat.ErrInvalid, "from past the head")
	assert.Equal(t, sharevat.Cursor(9), c)
}
