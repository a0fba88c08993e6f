package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sharevat"
	"sharevat/internal/pgtest"
	"sharevat/internal/proctest"
)

// TestMigrateCompactedToPostgres: a share on a bbolt vat is written (12
// ops over 4 messages, each rewritten) and compacted before cursor 8,
// and 4 more ops follow; `sharevat migrate` copies it into PostgreSQL.
// A vat on the database then answers a retry of every compacted op id
// as a duplicate at its original cursor (and applies nothing), serves
// the same snapshot and the same log from the earliest cursor on,
// refuses a read from before it with the same compacted error, and
// forks at earliest-1 and past it with the same state as bbolt's forks.
func TestMigrateCompactedToPostgres(t *testing.T) {
	data, owner, sent, onBolt := compactedVault(t)

	dsn := pgtest.DB(t)
	out, stderr, code := cli(t, "", nil, "migrate", "--from", data, "--to", dsn)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "the op ids of 21 compacted ones", "7 of the share, 7 of each fork made on bbolt")
	pgsrv, err := proctest.Start(t, binary, nil, "serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(),
		"--store", dsn, "--pepper-file", filepath.Join(data, "pepper.key"), "--log-level", "warn")
	require.NoError(t, err)

	retryDuplicates(t, pgsrv.URL, owner, sent) // compacted ops too: not applied again
	onPG := mcState(t, pgsrv.URL, owner, []sharevat.Cursor{7, 10})
	assert.Equal(t, onBolt, onPG)
}

// compactedVault is a stopped bbolt vat's data directory holding one
// share written (12 ops), compacted before cursor 8 and written on (4
// ops); it returns the directory, the owner token, the ops sent in
// cursor order and what the share showed (mcState, forks at 7 and 10).
func compactedVault(t *testing.T) (string, string, []sharevat.Op, mcView) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	sent := mcAppend(t, srv.URL, owner, 0, 12)
	earliest, err := redeemAt(t, srv.URL, owner).Compact(ctx, 8)
	require.NoError(t, err)
	require.Equal(t, sharevat.Cursor(8), earliest)
	sent = append(sent, mcAppend(t, srv.URL, owner, 12, 4)...)
	onBolt := mcState(t, srv.URL, owner, []sharevat.Cursor{7, 10})
	srv.Stop(t)
	return data, owner, sent, onBolt
}

// migrateThereAndBack copies the stopped vault in data into a new
// PostgreSQL database and back into a new directory, which it returns:
// clean by `sharevat check`, every share's buckets (shares of them) and
// what its compactions kept as data's, data's admin.token beside it.
func migrateThereAndBack(t *testing.T, data string, shares int) string {
	t.Helper()
	back := migrateBack(t, data)
	sameLogBuckets(t, filepath.Join(data, "sharevat.db"), filepath.Join(back, "sharevat.db"), shares)
	return back
}

// migrateBack copies the stopped vault in data into a new PostgreSQL
// database and back into a new directory, which it returns: clean by
// `sharevat check`, data's admin.token beside it.
func migrateBack(t *testing.T, data string) string {
	t.Helper()
	dsn := pgtest.DB(t)
	_, stderr, code := cli(t, "", nil, "migrate", "--from", data, "--to", dsn)
	require.Equal(t, 0, code, stderr)
	back := filepath.Join(t.TempDir(), "back")
	out, stderr, code := cli(t, "", nil, "migrate", "--from", dsn, "--to", back, "--pepper-file", filepath.Join(data, "pepper.key"))
	require.Equal(t, 0, code, stderr)
	t.Log(firstLine(out))
	_, stderr, code = cli(t, "", nil, "check", "--data", back)
	require.Equal(t, 0, code, "the vault copied back is clean: %s", stderr)
	admin, err := os.ReadFile(filepath.Join(data, "admin.token"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(back, "admin.token"), admin, 0o600))
	return back
}

// mcView is what a share shows through url: its snapshot, its log
// from the earliest cursor, the error of a read from 0, and the
// snapshot of a fork at each of forkAt.
type mcView struct {
	Snapshot []sharevat.Entity
	Head     sharevat.Cursor
	Log      []sharevat.Entry
	ReadErr  string
	Forks    map[sharevat.Cursor][]sharevat.Entity
}

func mcState(t *testing.T, url, token string, forkAt []sharevat.Cursor) mcView {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	sh := redeemAt(t, url, token)
	info, _, err := sh.Fetch(ctx)
	require.NoError(t, err)
	var st mcView
	st.Snapshot, st.Head = mcSnapshot(t, url, token)
	rd, err := sh.Reader(ctx)
	require.NoError(t, err)
	_, _, err = rd.Read(ctx, 0, 100)
	require.Error(t, err)
	assert.Equal(t, sharevat.ECompacted, sharevat.ErrorCode(err))
	assert.Contains(t, err.Error(), fmt.Sprintf("ops before cursor %d were compacted", info.Earliest))
	st.ReadErr = err.Error()
	st.Log, _, err = rd.Read(ctx, info.Earliest-1, 100)
	require.NoError(t, err)
	for i := range st.Log {
		st.Log[i].At = st.Log[i].At.UTC()
	}
	st.Forks = map[sharevat.Cursor][]sharevat.Entity{}
	for _, at := range forkAt {
		fork, m, err := sh.Fork(ctx, at, sharevat.MetaPatch{})
		require.NoError(t, err, "fork at %d", at)
		fork.Release()
		st.Forks[at], _ = mcSnapshot(t, url, m.Token)
	}
	return st
}

// mcSnapshot is the snapshot of token's share with its times in UTC.
func mcSnapshot(t *testing.T, url, token string) ([]sharevat.Entity, sharevat.Cursor) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rd, err := redeemAt(t, url, token).Reader(ctx)
	require.NoError(t, err)
	es, head, err := rd.Snapshot(ctx)
	require.NoError(t, err)
	for i := range es {
		es[i].At = es[i].At.UTC()
	}
	return es, head
}

// mcAppend appends n ops, one a batch, numbered from first: message
// m<i%4> rewritten, every fifth op an event, every seventh a deletion;
// it returns them.
func mcAppend(t *testing.T, url, token string, first, n int) []sharevat.Op {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	app, err := redeemAt(t, url, token).Appender(ctx)
	require.NoError(t, err)
	var ops []sharevat.Op
	for i := first; i < first+n; i++ {
		op := sharevat.Op{OpID: fmt.Sprintf("op%d", i), Kind: sharevat.KindMessage, Key: fmt.Sprintf("m%d", i%4), Body: []byte(fmt.Sprintf(`{"n":%d}`, i))}
		switch {
		case i%5 == 4:
			op.Kind, op.Key = sharevat.KindEvent, ""
		case i%7 == 6:
			op.Delete, op.Body = true, nil
		}
		ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "b-" + op.OpID, Epoch: 1, Ops: []sharevat.Op{op}})
		require.NoError(t, err)
		require.Equal(t, 1, ack.Applied, "op %s", op.OpID)
		ops = append(ops, op)
	}
	return ops
}
