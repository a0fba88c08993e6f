package main_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/pgtest"
	"github.com/sharevat/sharevat/internal/proctest"
)

// TestMigrateBoltToPostgres: a vault built on a bbolt vat (ops with
// state, a read grant, a revoked grant, a compacted-free log) is copied
// with `sharevat migrate` into an empty database; a vat on the database
// with the same pepper then redeems the owner, read and admin tokens
// minted on bbolt, refuses the revoked one, serves the same log and
// state, answers an op id appended on bbolt as a duplicate at its
// cursor, and keeps the audit log. A second migrate into the now full
// database is refused, as is a running vat's directory.
func TestMigrateBoltToPostgres(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	srv := startServer(t, data)
	owner := createShare(t, srv)
	acked := map[string]sharevat.Cursor{}
	appendAndRecord(t, srv.URL, owner, 0, 3, 4, acked)
	read := grantVia(t, srv.URL, owner, "reader")
	gone := grantVia(t, srv.URL, owner, "gone")
	require.NoError(t, revokeVia(t, srv.URL, owner, gone.GrantID))
	before := readAll(t, srv.URL, owner)
	_, stderr, code := cli(t, "", nil, "migrate", "--from", data, "--to", "postgres://127.0.0.1:1/x")
	require.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "stop it first", "a running vat's directory is refused")
	srv.Stop(t)

	dsn := pgtest.DB(t)
	out, stderr, code := cli(t, "", nil, "migrate", "--from", data, "--to", dsn)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "migrated 1 shares")
	t.Log(firstLine(out))
	_, stderr, code = cli(t, "", nil, "migrate", "--from", data, "--to", dsn)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, stderr, "empty", "a second migrate is refused")

	pgsrv, err := proctest.Start(t, binary, nil, "serve", "--listen", "127.0.0.1:0", "--data", t.TempDir(),
		"--store", dsn, "--pepper-file", filepath.Join(data, "pepper.key"), "--log-level", "warn")
	require.NoError(t, err)
	after := readAll(t, pgsrv.URL, owner)
	require.Equal(t, len(before), len(after))
	for i := range before {
		assert.Equal(t, before[i].OpID, after[i].OpID)
		assert.Equal(t, before[i].Cursor, after[i].Cursor)
		assert.Equal(t, before[i].Body, after[i].Body)
		assert.True(t, before[i].At.Equal(after[i].At), "op %d's time kept", i)
	}
	_, _, err = redeemAt(t, pgsrv.URL, read.Token).Fetch(ctx)
	require.NoError(t, err, "the read token minted on bbolt redeems on PostgreSQL")
	conn := redeemAt(t, pgsrv.URL, owner)
	_, _, err = conn.Fetch(ctx)
	require.NoError(t, err)
	app, err := conn.Appender(ctx)
	require.NoError(t, err)
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "again", Epoch: 1, Ops: []sharevat.Op{{OpID: before[0].OpID, Kind: before[0].Kind, Key: before[0].Key, Body: before[0].Body}}})
	require.NoError(t, err)
	assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status, "an op id appended on bbolt is a duplicate")
	assert.Equal(t, before[0].Cursor, ack.Results[0].Cursor, "at its cursor")
	out, stderr, code = cli(t, "", nil, "create", "--server", pgsrv.URL, "--token-file", filepath.Join(data, "admin.token"), "--title", "after")
	require.Equal(t, 0, code, "the bbolt vat's admin token creates shares on PostgreSQL: %s", stderr)
	assert.NotEmpty(t, firstLine(out), "a share created with the migrated admin token")
	c, err := client.Dial(ctx, pgsrv.URL, nil)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Redeem(ctx, gone.Token)
	assert.ErrorIs(t, err, sharevat.ErrUnauthorized, "the revoked grant stays revoked")

	migrateBackAndCheck(t, pgsrv, dsn, data, owner, read.Token, gone.Token)
}

// migrateBackAndCheck: the vault, grown on PostgreSQL by a fork and
// more ops, is copied back into a new data directory with `sharevat
// migrate --from postgres://… --to DIR`; a bbolt vat there redeems every
// token (owner, read, the fork's owner, admin), refuses the revoked one,
// serves the same logs with the same cursors and the fork's origin, and
// answers an old op id as a duplicate at its cursor.
func migrateBackAndCheck(t *testing.T, pgsrv *server, dsn, data, owner, read, gone string) {
	ctx := context.Background()
	sh := redeemAt(t, pgsrv.URL, owner)
	fork, fm, err := sh.Fork(ctx, 5, sharevat.MetaPatch{})
	require.NoError(t, err)
	fork.Release()
	appendAndRecord(t, pgsrv.URL, fm.Token, 1, 2, 2, map[string]sharevat.Cursor{})
	appendAndRecord(t, pgsrv.URL, owner, 2, 1, 3, map[string]sharevat.Cursor{})
	onPG := readAll(t, pgsrv.URL, owner)
	forkPG := readAll(t, pgsrv.URL, fm.Token)
	pgsrv.Stop(t)

	back := filepath.Join(t.TempDir(), "back")
	_, stderr, code := cli(t, "", nil, "migrate", "--from", dsn, "--to", back)
	assert.Equal(t, 2, code, "the way back needs the pepper: %s", stderr)
	out, stderr, code := cli(t, "", nil, "migrate", "--from", dsn, "--to", back, "--pepper-file", filepath.Join(data, "pepper.key"))
	require.Equal(t, 0, code, stderr)
	t.Log(firstLine(out))
	admin, err := os.ReadFile(filepath.Join(data, "admin.token"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(back, "admin.token"), admin, 0o600))
	srv := startServer(t, back)
	assert.Equal(t, onPG, readAll(t, srv.URL, owner), "the owner token redeems on bbolt; the same log")
	assert.Equal(t, forkPG, readAll(t, srv.URL, fm.Token), "the fork's token too; the same log")
	info, _, err := redeemAt(t, srv.URL, fm.Token).Fetch(ctx)
	require.NoError(t, err)
	assert.Equal(t, sharevat.Cursor(5), info.ForkCursor, "the fork's origin kept")
	_, _, err = redeemAt(t, srv.URL, read).Fetch(ctx)
	require.NoError(t, err)
	c, err := client.Dial(ctx, srv.URL, nil)
	require.NoError(t, err)
	defer c.Close()
	_, err = c.Redeem(ctx, gone)
	assert.ErrorIs(t, err, sharevat.ErrUnauthorized, "the revoked grant stays revoked")
	app, err := redeemAt(t, srv.URL, owner).Appender(ctx)
	require.NoError(t, err)
	last := onPG[len(onPG)-1]
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "again2", Epoch: 1, Ops: []sharevat.Op{{OpID: last.OpID, Kind: last.Kind, Key: last.Key, Body: last.Body}}})
	require.NoError(t, err)
	assert.Equal(t, sharevat.StatusDuplicate, ack.Results[0].Status)
	assert.Equal(t, last.Cursor, ack.Results[0].Cursor)
	_, stderr, code = cli(t, "", nil, "create", "--server", srv.URL, "--token-file", filepath.Join(back, "admin.token"), "--title", "back")
	require.Equal(t, 0, code, "the admin token works on bbolt again: %s", stderr)
}
