package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
)

// TestOutboxLostReply: the server applies the second batch, the proxy
// drops its ack and then cuts the connection. Invariants:
//   - the client resends that batch with the same batch id, seqs and op
//     ids (the store receives it twice, identical);
//   - the resend's ack says duplicate, at the cursors of the original
//     apply, and the outbox records exactly those;
//   - the log, read over a separate direct connection, holds each op
//     once, in enqueue order; nothing is pending or failed; the client
//     redeemed on exactly one new connection.
func TestOutboxLostReply(t *testing.T) {
	tv := mustServeOutboxVat(t)
	owner := tv.mustCreate(t)
	p := tv.mustProxy(t)
	o := mustOutbox(t, client.OutboxOptions{MaxBatchOps: 4})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ids, err := o.Enqueue(ctx, testOps("a", 12)...)
	require.NoError(t, err)

	lost := make(chan sharevat.Ack, 1)
	tv.Store.setAfterAppend(func(_ context.Context, n int, _ sharevat.AppendRequest, ack sharevat.Ack) {
		if n == 2 {
			p.DropServerToClient(true) // before the vat sends this ack
			lost <- ack
		}
	})
	errc := flushAsync(ctx, o, fastRedeemer(t, "ws://"+p.Addr()+"/rpc", owner))
	var original sharevat.Ack
	select {
	case original = <-lost:
	case <-time.After(30 * time.Second):
		t.Fatal("the second batch never reached the server")
	}
	p.Reset() // cut the connection that lost the ack; heal for the reconnect
	require.NoError(t, waitErr(t, errc, 30*time.Second, "Flush"))

	got := tv.Store.received()
	require.Len(t, got, 4, "three batches, the second one twice")
	assert.Equal(t, got[1], got[2], "the resend is the same batch: id, seqs, op ids, epoch")
	res, err := o.Results(entryIDs(batchEntries(got[1]))...)
	require.NoError(t, err)
	for i, r := range res {
		assert.Equal(t, sharevat.StatusDuplicate, r.Status, r.OpID)
		assert.Equal(t, original.Results[i].Cursor, r.Cursor, "op %s keeps its original cursor", r.OpID)
	}
	assert.Equal(t, ids, entryIDs(tv.readLog(t, owner)), "each op once, in enqueue order")
	st, err := o.Status()
	require.NoError(t, err)
	assert.Equal(t, 0, st.Pending)
	assert.Empty(t, st.Failed)
	assert.Equal(t, 2, p.Accepted(), "one reconnect")
	t.Logf("lost ack of batch %s (cursors %d–%d); resent once; %d ops in the log once each",
		got[1].BatchID, original.Results[0].Cursor, original.Head, len(ids))
}

func batchEntries(b sharevat.Batch) []sharevat.Entry {
	out := make([]sharevat.Entry, len(b.Ops))
	for i, op := range b.Ops {
		out[i].OpID = op.OpID
	}
	return out
}

// TestOutboxStopsOnRevoke: the owner revokes an append grant while its
// holder is flushing (the third batch is committed and its ack held back
// until the revoke has returned). Invariants:
//   - Flush returns promptly with revoked (or unauthorized, had it
//     reconnected), not a retry loop: the grant was redeemed at most
//     twice in all (audit log) over at most two connections (proxy);
//   - a second Flush fails the same way at once, with at most one more
//     redeem;
//   - the unsent ops stay pending (not failed), and the last error says
//     why.
func TestOutboxStopsOnRevoke(t *testing.T) {
	tv := mustServeOutboxVat(t)
	owner := tv.mustRestore(t, tv.mustCreate(t))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m, err := owner.Grant(ctx, sharevat.ScopeAppend, 0, "agent b")
	require.NoError(t, err)
	p := tv.mustProxy(t)
	o := mustOutbox(t, client.OutboxOptions{MaxBatchOps: 5})
	_, err = o.Enqueue(ctx, testOps("a", 50)...)
	require.NoError(t, err)

	third, release := make(chan struct{}), make(chan struct{})
	tv.Store.setAfterAppend(func(cctx context.Context, n int, _ sharevat.AppendRequest, _ sharevat.Ack) {
		if n == 3 {
			close(third)
			select {
			case <-release:
			case <-cctx.Done():
			}
		}
	})
	s := fastRedeemer(t, "ws://"+p.Addr()+"/rpc", m.Token)
	errc := flushAsync(ctx, o, s)
	select {
	case <-third:
	case <-time.After(30 * time.Second):
		t.Fatal("the third batch never reached the server")
	}
	require.NoError(t, owner.Revoke(ctx, m.GrantID))
	close(release)
	start := time.Now()
	flushErr := waitErr(t, errc, 10*time.Second, "Flush after revoke")
	stopped := time.Since(start)
	assert.True(t, isDenied(flushErr), "revoked or unauthorized, got %v", flushErr)

	redeems := countRedeems(t, tv, owner.Info.ID, m.GrantID)
	assert.LessOrEqual(t, redeems, 2, "no redeem loop")
	assert.LessOrEqual(t, p.Accepted(), 2, "no reconnect loop")
	err = o.Flush(ctx, s)
	assert.True(t, isDenied(err), "a second flush fails too, got %v", err)
	assert.LessOrEqual(t, countRedeems(t, tv, owner.Info.ID, m.GrantID), redeems+1)

	st, err := o.Status()
	require.NoError(t, err)
	assert.GreaterOrEqual(t, st.Pending, 35, "unsent ops stay pending")
	assert.Empty(t, st.Failed, "nothing is failed by a revocation")
	assert.Regexp(t, "revoked|unauthorized", st.LastError)
	t.Logf("flush stopped %s after the revoke with %q; %d redeems, %d connections, %d ops still pending",
		stopped, sharevat.ErrorCode(flushErr), redeems, p.Accepted(), st.Pending)
}

func isDenied(err error) bool {
	return errors.Is(err, sharevat.ErrRevoked) || errors.Is(err, sharevat.ErrUnauthorized)
}

// countRedeems counts the audit log's redeem records of grant.
func countRedeems(t *testing.T, tv *obVat, share sharevat.ShareID, grant sharevat.GrantID) int {
	t.Helper()
	tv.Vat.SyncAudit()
	recs, err := tv.Store.AuditLog(context.Background(), share, 0, 10_000)
	require.NoError(t, err)
	n := 0
	for _, r := range recs {
		if r.Action == sharevat.AuditRedeem && r.GrantID == grant {
			n++
		}
	}
	return n
}
