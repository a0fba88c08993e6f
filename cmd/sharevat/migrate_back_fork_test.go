package main_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sharevat"
	"sharevat/client"
)

// TestMigrateBackForkOfCompacted: a share on a bbolt vat is forked at
// cursor 3, the fork written to, and only then the share compacted
// before cursor 8, past the fork cursor (the fork, made before, keeps
// its whole log: earliest 1). After `sharevat migrate` into PostgreSQL
// and `sharevat migrate --from postgres://… --to DIR` back, the fork
// cannot be made again by forking its parent there; it is still copied,
// with its parent id and fork cursor. `sharevat check --data` finds the
// new vault clean with every bucket as the first vault's, and a vat on
// it shows the fork's same info, log and snapshot and answers a retry
// of each of its ops (the parent's three first) as a duplicate at its
// original cursor.
func TestMigrateBackForkOfCompacted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	data, srv, f := forkedVault(t, ctx)
	owner, child, sent, childSent := f.owner, f.child, f.sent, f.childSent
	sent = append(sent, mcAppend(t, srv.URL, owner, 3, 9)...)
	earliest, err := redeemAt(t, srv.URL, owner).Compact(ctx, 8)
	require.NoError(t, err)
	require.Equal(t, sharevat.Cursor(8), earliest)
	sent = append(sent, mcAppend(t, srv.URL, owner, 12, 4)...)
	onBolt := forkView(t, srv.URL, child)
	require.Equal(t, sharevat.Cursor(1), onBolt.Info.Earliest, "the fork was made before the compaction")
	require.Equal(t, sharevat.Cursor(3), onBolt.Info.ForkCursor)
	require.NotEmpty(t, onBolt.Info.ParentID)
	require.Len(t, onBolt.Log, 8)
	srv.Stop(t)

	back := migrateThereAndBack(t, data, 2)

	srv = startServer(t, back)
	assert.Equal(t, onBolt, forkView(t, srv.URL, child))
	retryDuplicates(t, srv.URL, child, childSent)
	retryDuplicates(t, srv.URL, owner, sent)
	srv.Stop(t)
	_, stderr, code := cli(t, "", nil, "check", "--data", back)
	assert.Equal(t, 0, code, "still clean after the retries: %s", stderr)
}

// forked is a share with three ops and its fork at cursor 3 with five
// ops of its own: both owner tokens and the ops each was sent (the
// fork's begin with the parent's three).
type forked struct {
	owner, child    string
	sent, childSent []sharevat.Op
}

// forkedVault starts a vat on a new data directory and makes a forked
// share in it.
func forkedVault(t *testing.T, ctx context.Context) (string, *server, forked) {
	t.Helper()
	data := t.TempDir()
	srv := startServer(t, data)
	f := forked{owner: createShare(t, srv)}
	f.sent = mcAppend(t, srv.URL, f.owner, 0, 3)
	_, m, err := redeemAt(t, srv.URL, f.owner).Fork(ctx, 3, sharevat.MetaPatch{})
	require.NoError(t, err)
	f.child = m.Token
	f.childSent = append(f.sent[:3:3], mcAppend(t, srv.URL, f.child, 100, 5)...)
	return data, srv, f
}

// forkInfo is what the fork test compares of a share: its info (ids,
// parent, fork cursor, earliest, head), its whole log and its snapshot.
type forkInfo struct {
	Info     sharevat.Share
	Log      []sharevat.Entry
	Snapshot []sharevat.Entity
	Head     sharevat.Cursor
}

func forkView(t *testing.T, url, token string) forkInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sh := redeemAt(t, url, token)
	info, _, err := sh.Fetch(ctx)
	require.NoError(t, err)
	v := forkInfo{Info: sharevat.Share{ID: info.ID, ParentID: info.ParentID, ForkCursor: info.ForkCursor,
		Earliest: info.Earliest, Head: info.Head, Epoch: info.Epoch}}
	rd, err := sh.Reader(ctx)
	require.NoError(t, err)
	v.Log, _, err = rd.Read(ctx, 0, 100)
	require.NoError(t, err)
	for i := range v.Log {
		v.Log[i].At = v.Log[i].At.UTC()
	}
	v.Snapshot, v.Head = mcSnapshot(t, url, token)
	return v
}

// retryDuplicates appends sent again in one batch and asserts each op is
// a duplicate at its original cursor (its index + 1) and none applied.
func retryDuplicates(t *testing.T, url, token string, sent []sharevat.Op) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	app, err := redeemAt(t, url, token).Appender(ctx)
	require.NoError(t, err)
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "retry", Epoch: 1, Ops: sent})
	require.NoError(t, err)
	require.Len(t, ack.Results, len(sent))
	for i, r := range ack.Results {
		assert.Equal(t, sharevat.StatusDuplicate, r.Status, "op %s", sent[i].OpID)
		assert.Equal(t, sharevat.Cursor(i+1), r.Cursor, "op %s at its original cursor", sent[i].OpID)
	}
	assert.Zero(t, ack.Applied, "a retry is not applied again")
}

// TestMigrateBackForkOfDeleted: a share is forked at cursor 3, the fork
// written to, a read grant of the share made, and the share then deleted
// (its fork lives on). After `sharevat migrate` into PostgreSQL and back
// (4 grants each way: the admin's, the deleted share's two, revoked, and
// the fork's owner), the fork keeps its parent id and fork cursor, its whole
// log and snapshot, and answers a retry of each of its ops as a duplicate
// at its original cursor; the deleted share's grants are still refused
// and `sharevat check --data` finds the vault clean.
func TestMigrateBackForkOfDeleted(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	data, srv, f := forkedVault(t, ctx)
	owner, child, childSent := f.owner, f.child, f.childSent
	read := grantVia(t, srv.URL, owner, "read")
	require.NoError(t, redeemAt(t, srv.URL, owner).Delete(ctx))
	onBolt := forkView(t, srv.URL, child)
	require.Equal(t, sharevat.Cursor(3), onBolt.Info.ForkCursor)
	require.NotEmpty(t, onBolt.Info.ParentID)
	require.Len(t, onBolt.Log, 8)
	srv.Stop(t)

	back := migrateBack(t, data)

	srv = startServer(t, back)
	assert.Equal(t, onBolt, forkView(t, srv.URL, child), "the fork of a deleted parent, with its parent id and fork cursor")
	retryDuplicates(t, srv.URL, child, childSent)
	c, err := client.Dial(ctx, srv.URL, nil)
	require.NoError(t, err)
	defer c.Close()
	for _, token := range []string{owner, read.Token} {
		_, err = c.Redeem(ctx, token)
		assert.ErrorIs(t, err, sharevat.ErrUnauthorized, "a grant of the deleted share")
	}
	srv.Stop(t)
	_, stderr, code := cli(t, "", nil, "check", "--data", back)
	assert.Equal(t, 0, code, "clean after the retries: %s", stderr)
}
