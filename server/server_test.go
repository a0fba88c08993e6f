package server_test

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/capnweb"
	"github.com/sharevat/sharevat/client"
	"github.com/sharevat/sharevat/internal/servertest"
	"github.com/sharevat/sharevat/server"
	"github.com/sharevat/sharevat/store/bolt"
)

// TestServerEveryRouteInProcess: the whole server, started in-process
// through server.New and Serve, answers on every route: a share created
// and appended to over /rpc is restored over /capnweb; /healthz, /,
// /s/, /metrics and /backup (admin token only) answer; the Host guard
// refuses a foreign Host. After Close the bbolt file is released and
// holds the append.
func TestServerEveryRouteInProcess(t *testing.T) {
	s := servertest.Start(t, servertest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	token := createAndAppend(ctx, t, s)

	web, err := capnweb.Dial(ctx, strings.TrimSuffix(s.URL, "/rpc")+"/capnweb", nil, nil)
	require.NoError(t, err)
	defer web.Close()
	res, err := web.Main().Call(ctx, "restore", token)
	require.NoError(t, err)
	info, _ := res.(*capnweb.Object).Get("info")
	meta, _ := info.(*capnweb.Object).Get("meta")
	title, _ := meta.(*capnweb.Object).Get("title")
	assert.Equal(t, "in-process", title)

	assert.Equal(t, "ok\n", get(t, s.HTTP+"/healthz", nil, http.StatusOK))
	assert.Contains(t, get(t, s.HTTP+"/", nil, http.StatusOK), "/capnweb")
	assert.Contains(t, get(t, s.HTTP+"/s/", nil, http.StatusOK), "<html")
	assert.Contains(t, get(t, s.HTTP+"/metrics", nil, http.StatusOK), "sharevat_appends_total 1")
	get(t, s.HTTP+"/backup", nil, http.StatusUnauthorized)
	copyOf := get(t, s.HTTP+"/backup", http.Header{"Authorization": {"Bearer " + s.Admin}}, http.StatusOK)
	assert.NotEmpty(t, copyOf)
	get(t, s.HTTP+"/healthz", http.Header{"Host": {"evil.example"}}, http.StatusMisdirectedRequest)
	assert.NotContains(t, s.Log.String(), s.Admin, "the admin token reaches no log")
	assert.NotContains(t, s.Log.String(), token, "a share token reaches no log")

	web.Close()
	require.NoError(t, s.Close(ctx))
	db, err := bolt.Open(filepath.Join(s.Data, server.DBFile), bolt.Options{LockTimeout: time.Second})
	require.NoError(t, err, "Close released the data file")
	defer db.Close()
	shares, err := db.Shares(ctx)
	require.NoError(t, err)
	require.Len(t, shares, 1)
	assert.Equal(t, sharevat.Cursor(1), shares[0].Head)
}

// createAndAppend creates a share over /rpc with the admin token,
// appends one op with its owner token and returns that token.
func createAndAppend(ctx context.Context, t *testing.T, s *servertest.Server) string {
	t.Helper()
	conn, err := client.Dial(ctx, s.URL, nil)
	require.NoError(t, err)
	defer conn.Close()
	admin, err := conn.RedeemAdmin(ctx, s.Admin)
	require.NoError(t, err)
	defer admin.Release()
	sh, minted, err := admin.CreateShare(ctx, sharevat.MetaPatch{Title: ptr("in-process")})
	require.NoError(t, err)
	defer sh.Release()
	app, err := sh.Appender(ctx)
	require.NoError(t, err)
	defer app.Release()
	ack, err := app.Append(ctx, &sharevat.Batch{BatchID: "b1", Epoch: sh.Access.Epoch, Ops: []sharevat.Op{
		{OpID: "op1", Kind: sharevat.KindEvent, Body: []byte(`{"text":"hi"}`)}}})
	require.NoError(t, err)
	require.Equal(t, 1, ack.Applied)
	return minted.Token
}

// get sends GET url with header (a "Host" entry sets the Host), requires
// status want and returns the body.
func get(t *testing.T, url string, header http.Header, want int) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for k, v := range header {
		if k == "Host" {
			req.Host = v[0]
			continue
		}
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, want, resp.StatusCode, "GET %s: %s", url, b)
	return string(b)
}

func ptr[T any](v T) *T { return &v }
