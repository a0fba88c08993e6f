package client_test

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// TestOutboxFlush: ops are sent in enqueue order, in batches of at most
// MaxBatchOps with seqs 0…n-1, ops without an id get a random one, and
// each op's result carries the cursor the log holds it at.
func TestOutboxFlush(t *testing.T) {
	tv := mustServeOutboxVat(t)
	owner := tv.mustCreate(t)
	o := mustOutbox(t, client.OutboxOptions{MaxBatchOps: 4})
	ctx := context.Background()
	ops := testOps("a", 6)
	ops[2].OpID = ""
	ids, err := o.Enqueue(ctx, ops...)
	require.NoError(t, err)
	assert.Regexp(t, regexp.MustCompile(`^op-[0-9a-f]{32}$`), ids[2])
	more, err := o.Enqueue(ctx, testOps("b", 3)...)
	require.NoError(t, err)
	ids = append(ids, more...)

	require.NoError(t, o.Flush(ctx, fastRedeemer(t, tv.URL, owner)))
	log := tv.readLog(t, owner)
	assert.Equal(t, ids, entryIDs(log), "the log holds every op once, in enqueue order")
	var sizes []int
	for _, b := range tv.Store.received() {
		sizes = append(sizes, len(b.Ops))
		for i, op := range b.Ops {
			assert.Equal(t, uint32(i), op.Seq)
		}
	}
	assert.Equal(t, []int{4, 4, 1}, sizes)
	res, err := o.Results(ids...)
	require.NoError(t, err)
	for i, r := range res {
		assert.Equal(t, client.OpDone, r.State, r.OpID)
		assert.Equal(t, log[i].Cursor, r.Cursor, r.OpID)
	}
	st, err := o.Status()
	require.NoError(t, err)
	assert.Equal(t, 0, st.Pending)
	assert.Equal(t, sharevat.Cursor(9), st.LastAckedCursor)
	assert.Equal(t, tv.mustRestore(t, owner).Info.ID, st.ShareID, "bound to the share")
}

// TestOutboxRejectedIsFailedNotRetried: a rejected op is failed with its
// reason, Flush still succeeds, and the op is never sent again.
func TestOutboxRejectedIsFailedNotRetried(t *testing.T) {
	tv := mustServeOutboxVat(t)
	owner := tv.mustCreate(t)
	o := mustOutbox(t, client.OutboxOptions{})
	ctx := context.Background()
	ops := testOps("a", 3)
	ops[1].Kind = "nope"
	_, err := o.Enqueue(ctx, ops...)
	require.NoError(t, err)
	s := fastRedeemer(t, tv.URL, owner)
	require.NoError(t, o.Flush(ctx, s))
	require.NoError(t, o.Flush(ctx, s))
	assert.Len(t, tv.Store.received(), 1, "the second flush had nothing to send")
	st, err := o.Status()
	require.NoError(t, err)
	require.Len(t, st.Failed, 1)
	assert.Equal(t, "a1", st.Failed[0].OpID)
	assert.Equal(t, sharevat.ReasonInvalid, st.Failed[0].Reason)
	assert.NotEmpty(t, st.Failed[0].Message)
	assert.Equal(t, []string{"a0", "a2"}, entryIDs(tv.readLog(t, owner)))
}

// TestOutboxResumesAfterReopen: a batch sent but not acked (its reply
// lost) survives closing the outbox; after reopening, Flush resends the
// very same batch and the server answers duplicate at the original
// cursors.
func TestOutboxResumesAfterReopen(t *testing.T) {
	tv := mustServeOutboxVat(t)
	owner := tv.mustCreate(t)
	p := tv.mustProxy(t)
	path := filepath.Join(t.TempDir(), "outbox.db")
	o, err := client.OpenOutbox(path, client.OutboxOptions{})
	require.NoError(t, err)
	_, err = o.Enqueue(context.Background(), testOps("a", 3)...)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	tv.Store.setAfterAppend(func(context.Context, int, sharevat.AppendRequest, sharevat.Ack) {
		p.DropServerToClient(true) // the ack never reaches the client
		cancel()                   // and the client gives up
	})
	err = o.Flush(ctx, fastRedeemer(t, "ws://"+p.Addr()+"/rpc", owner))
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, o.Close())
	tv.Store.setAfterAppend(nil)

	o, err = client.OpenOutbox(path, client.OutboxOptions{})
	require.NoError(t, err)
	defer o.Close()
	st, err := o.Status()
	require.NoError(t, err)
	assert.Equal(t, 3, st.Pending, "nothing acked")
	require.NoError(t, o.Flush(context.Background(), fastRedeemer(t, tv.URL, owner)))

	got := tv.Store.received()
	require.Len(t, got, 2)
	assert.Equal(t, got[0].BatchID, got[1].BatchID, "the same batch id after reopen")
	assert.Equal(t, got[0].Ops, got[1].Ops, "the same ops, ids and seqs")
	res, err := o.Results("a0", "a1", "a2")
	require.NoError(t, err)
	for i, r := range res {
		assert.Equal(t, sharevat.StatusDuplicate, r.Status, r.OpID)
		assert.Equal(t, sharevat.Cursor(i+1), r.Cursor, r.OpID)
	}
}

// TestOutboxRun: the background flusher sends whatever is enqueued while
// it runs, and returns nil when its context ends.
func TestOutboxRun(t *testing.T) {
	tv := mustServeOutboxVat(t)
	owner := tv.mustCreate(t)
	acks := make(chan sharevat.Ack, 10)
	o := mustOutbox(t, client.OutboxOptions{OnAck: func(_ string, a sharevat.Ack) { acks <- a }})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- o.Run(ctx, fastRedeemer(t, tv.URL, owner)) }()
	for i, prefix := range []string{"a", "b", "c"} {
		_, err := o.Enqueue(context.Background(), testOps(prefix, 2)...)
		require.NoError(t, err)
		select {
		case a := <-acks:
			assert.Equal(t, sharevat.Cursor(2*(i+1)), a.Head)
		case <-time.After(20 * time.Second):
			t.Fatalf("no ack for enqueue %d", i)
		}
	}
	cancel()
	assert.NoError(t, waitErr(t, done, 10*time.Second, "Run after cancel"))
}

// TestOutboxCloseStopsFlush: Close ends a Flush that waits for an ack
// that will never come (the proxy drops it), and waits for it; the batch
// stays pending.
func TestOutboxCloseStopsFlush(t *testing.T) {
	tv := mustServeOutboxVat(t)
	owner := tv.mustCreate(t)
	p := tv.mustProxy(t)
	o, err := client.OpenOutbox(filepath.Join(t.TempDir(), "outbox.db"), client.OutboxOptions{})
	require.NoError(t, err)
	_, err = o.Enqueue(context.Background(), testOps("a", 1)...)
	require.NoError(t, err)
	applied := make(chan struct{})
	tv.Store.setAfterAppend(func(context.Context, int, sharevat.AppendRequest, sharevat.Ack) {
		p.DropServerToClient(true)
		close(applied)
	})
	errc := flushAsync(context.Background(), o, fastRedeemer(t, "ws://"+p.Addr()+"/rpc", owner))
	select {
	case <-applied:
	case <-time.After(20 * time.Second):
		t.Fatal("the batch never reached the server")
	}
	require.NoError(t, o.Close())
	err = waitErr(t, errc, 10*time.Second, "Flush after Close")
	assert.ErrorIs(t, err, context.Canceled)
	_, err = o.Enqueue(context.Background(), testOps("b", 1)...)
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "closed")
}

// TestOutboxBoundToOneShare: an outbox flushed for one share refuses a
// token of another, without retrying.
func TestOutboxBoundToOneShare(t *testing.T) {
	tv := mustServeOutboxVat(t)
	a, b := tv.mustCreate(t), tv.mustCreate(t)
	o := mustOutbox(t, client.OutboxOptions{})
	ctx := context.Background()
	_, err := o.Enqueue(ctx, testOps("a", 1)...)
	require.NoError(t, err)
	require.NoError(t, o.Flush(ctx, fastRedeemer(t, tv.URL, a)))
	_, err = o.Enqueue(ctx, testOps("b", 1)...)
	require.NoError(t, err)
	err = o.Flush(ctx, fastRedeemer(t, tv.URL, b))
	assert.Equal(t, sharevat.EInvalid, sharevat.ErrorCode(err))
	assert.Len(t, tv.Store.received(), 1, "nothing sent to the other share")
}

func TestOutboxEnqueueChecks(t *testing.T) {
	o := mustOutbox(t, client.OutboxOptions{MaxBatchBytes: 100})
	ctx := context.Background()
	big := sharevat.Op{OpID: "big", Kind: sharevat.KindEvent, Body: make([]byte, sharevat.HardMaxBatchBytes)}
	_, err := o.Enqueue(ctx, append(testOps("a", 1), big)...)
	assert.Equal(t, sharevat.ETooLarge, sharevat.ErrorCode(err), "an op that no server takes")
	_, err = o.Enqueue(ctx, testOps("a", 1)...)
	require.NoError(t, err)
	conflicting := testOps("a", 1)
	conflicting[0].Body = []byte(`{"other":true}`)
	_, err = o.Enqueue(ctx, conflicting...)
	assert.Equal(t, sharevat.EConflict, sharevat.ErrorCode(err), "a pending id with other content")
	st, err := o.Status()
	require.NoError(t, err)
	assert.Equal(t, 1, st.Pending, "only the good call stored its op")
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = o.Enqueue(cctx, testOps("c", 1)...)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestOutboxOpsOverTheBatchSize: an op bigger than the outbox's batch
// size goes alone; one bigger than the server's largest append is not
// sent but rejected with the reason and message the server's own checks
// give under the limits it reports; one the server refuses for its body
// is rejected by the server, in the same words.
func TestOutboxOpsOverTheBatchSize(t *testing.T) {
	tv := mustServeOutboxVat(t)
	token := tv.mustCreate(t)
	o := mustOutbox(t, client.OutboxOptions{MaxBatchBytes: 100})
	// 11 MiB of bodies through the outbox file and the checks, under the
	// race detector: ~15 s on a loaded CI machine, so a generous bound.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	body := func(n int) []byte { return []byte(`"` + strings.Repeat("x", n-2) + `"`) }
	ops := []sharevat.Op{
		{OpID: "alone", Kind: sharevat.KindEvent, Body: body(300)},
		{OpID: "body", Kind: sharevat.KindEvent, Body: body(2 << 20)},
		{OpID: "huge", Kind: sharevat.KindEvent, Body: body(9 << 20)},
	}
	_, err := o.Enqueue(ctx, ops...)
	require.NoError(t, err)
	require.NoError(t, o.Flush(ctx, fastRedeemer(t, tv.URL, token)))

	res, err := o.Results("alone", "body", "huge")
	require.NoError(t, err)
	assert.Equal(t, client.OpDone, res[0].State, "over the outbox's batch size: sent alone")
	for _, r := range res[1:] {
		assert.Equal(t, client.OpFailed, r.State, r.OpID)
		assert.Equal(t, sharevat.ReasonTooLarge, r.Reason, r.OpID)
	}
	assert.Equal(t, "body is 2097152 bytes; limit is 1048576", res[1].Message, "the server's answer")
	assert.Equal(t, "body is 9437184 bytes; limit is 1048576; not sent: over the server's limits", res[2].Message)
	var sent []string
	for _, b := range tv.Store.received() {
		for _, op := range b.Ops {
			sent = append(sent, op.OpID)
		}
	}
	assert.Equal(t, []string{"alone", "body"}, sent, "the op over the server's largest append was never sent")
}
