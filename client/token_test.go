package client_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/internal/vattest"
)

// TestTokensAreTrimmed: a token read from a file keeps its trailing
// newline; RedeemAdmin, Redeem and a Redeemer's Share accept it, as the CLI
// does. Before, each failed with unauthorized.
func TestTokensAreTrimmed(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	ctx := context.Background()
	owner := srv.MustCreate(t, "trimmed")
	t.Run("Admin", func(t *testing.T) {
		adminFile := filepath.Join(t.TempDir(), "admin.token")
		require.NoError(t, os.WriteFile(adminFile, []byte(srv.Admin+"\n"), 0o600))
		tok, err := os.ReadFile(adminFile)
		require.NoError(t, err)
		admin, err := srv.MustDial(t).RedeemAdmin(ctx, string(tok))
		require.NoError(t, err, "Admin with the file's trailing newline")
		admin.Release()
	})
	t.Run("Redeem", func(t *testing.T) {
		for _, padded := range []string{owner + "\n", " \t" + owner + "\r\n"} {
			sh, err := srv.MustDial(t).Redeem(ctx, padded)
			require.NoError(t, err, "Redeem with surrounding whitespace")
			sh.Release()
		}
	})
	t.Run("Redeemer", func(t *testing.T) {
		sh, err := quickRedeemer(t, srv.URL, owner+"\n").Share(ctx)
		require.NoError(t, err, "Redeemer.Share with a trailing newline")
		require.Equal(t, sharevat.ScopeOwner, sh.Access.Scope)
	})
}

// TestWrongTokenStillUnauthorized: trimming changes nothing else; a
// wrong token, padded or not, is still unauthorized.
func TestWrongTokenStillUnauthorized(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	ctx := context.Background()
	bad := vattest.WrongSecret(srv.Admin) + "\n"
	_, err := srv.MustDial(t).RedeemAdmin(ctx, bad)
	require.Equal(t, sharevat.EUnauthorized, sharevat.ErrorCode(err))
	_, err = srv.MustDial(t).Redeem(ctx, bad)
	require.Equal(t, sharevat.EUnauthorized, sharevat.ErrorCode(err))
}

// TestListShowsLogHead: Admin.list shows each share at its log's head,
// as a redeemed share's info does: 3 ops, head 3; no ops, head 0.
// Before, every share listed at head 0.
func TestListShowsLogHead(t *testing.T) {
	srv := vattest.Start(t, vattest.Options{})
	ctx := context.Background()
	busy := srv.MustCreate(t, "busy")
	idle := srv.MustCreate(t, "idle")
	app, err := srv.MustRestore(t, busy).Appender(ctx)
	require.NoError(t, err)
	defer app.Release()
	b := &sharevat.Batch{BatchID: "b1", Epoch: 1, Ops: []sharevat.Op{
		{OpID: "1", Kind: sharevat.KindEvent, Body: []byte(`{}`)},
		{OpID: "2", Kind: sharevat.KindEvent, Body: []byte(`{}`)},
		{OpID: "3", Kind: sharevat.KindEvent, Body: []byte(`{}`)},
	}}
	_, err = app.Append(ctx, b)
	require.NoError(t, err)

	admin, err := srv.MustDial(t).RedeemAdmin(ctx, srv.Admin)
	require.NoError(t, err)
	defer admin.Release()
	list, _, err := admin.List(ctx, sharevat.ListFilter{})
	require.NoError(t, err)
	heads := map[sharevat.ShareID]sharevat.Cursor{}
	for _, s := range list {
		heads[s.ID] = s.Head
	}
	want := map[sharevat.ShareID]sharevat.Cursor{
		srv.MustRestore(t, busy).Info.ID: 3,
		srv.MustRestore(t, idle).Info.ID: 0,
	}
	require.Equal(t, want, heads)
}
