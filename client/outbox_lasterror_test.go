package client_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/vattest"
)

// closedURL is a loopback URL nothing listens on.
func closedURL(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "ws://" + addr + "/rpc"
}

// TestFlushRecordsWhyItGaveUp: a Flush that its deadline ends while the
// server cannot be reached records that as the last error (on main it
// recorded nothing), and a later Flush that delivers clears it.
func TestFlushRecordsWhyItGaveUp(t *testing.T) {
	tv := mustServeOutboxVat(t)
	token := tv.mustCreate(t)
	o := mustOutbox(t, client.OutboxOptions{})
	_, err := o.Enqueue(context.Background(), testOps("g", 3)...)
	require.NoError(t, err)

	dead := closedURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, o.Flush(ctx, fastRedeemer(t, dead, token)), context.DeadlineExceeded)
	st, err := o.Status()
	require.NoError(t, err)
	assert.Equal(t, "cannot reach "+dead+": connection refused; gave up at the deadline", st.LastError)
	assert.NotContains(t, st.LastError, token)
	assert.Equal(t, 3, st.Pending)

	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, o.Flush(ctx, fastRedeemer(t, tv.URL, token)))
	st, err = o.Status()
	require.NoError(t, err)
	assert.Empty(t, st.LastError, "the ack clears it")
	assert.Zero(t, st.Pending)
}

// TestFlushRecordsNoAnswer: a server that never answers gives no failure
// to name: at the deadline the outbox says it had no answer; a Flush
// canceled (not failed) records nothing. On main: nothing either way.
func TestFlushRecordsNoAnswer(t *testing.T) {
	tv := mustServeOutboxVat(t)
	token := tv.mustCreate(t)
	url, accepted := vattest.SilentServer(t)

	o := mustOutbox(t, client.OutboxOptions{})
	_, err := o.Enqueue(context.Background(), testOps("c", 1)...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	errc := flushAsync(ctx, o, fastRedeemer(t, url, token))
	<-accepted // the dial reached the server, which stays silent
	cancel()
	require.Error(t, waitErr(t, errc, 30*time.Second, "a canceled Flush"))
	st, err := o.Status()
	require.NoError(t, err)
	assert.Empty(t, st.LastError, "a cancellation with nothing failed is no error")

	ctx, cancel = context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	require.Error(t, o.Flush(ctx, fastRedeemer(t, url, token)))
	st, err = o.Status()
	require.NoError(t, err)
	assert.Equal(t, "no answer from "+url+" before the deadline", st.LastError)
}
