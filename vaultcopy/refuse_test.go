package vaultcopy_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/pg"
	"github.com/sharevat/sharevat/vaultcopy"
)

// TestToPostgresRefusesRunningVat: a bbolt file a running vat holds
// (here, an open store) is refused with EUnavailable and a message
// that says to stop the vat; nothing is written to the database.
func TestToPostgresRefusesRunningVat(t *testing.T) {
	db := mustBolt(t)
	buildVault(t, db)
	dst, dsn := mustPG(t)

	_, err := vaultcopy.ToPostgres(t.Context(), db.Path(), dsn, vaultcopy.Options{})
	assert.Equal(t, sharevat.EUnavailable, sharevat.ErrorCode(err), "%v", err)
	assert.ErrorContains(t, err, "stop it first")
	require.NoError(t, vaultcopy.RefuseNonEmpty(t.Context(), dst), "nothing copied")
}

// TestToPostgresRefusesFullDatabase: a second copy into a database that
// already holds the vault is refused with EConflict, and the database
// keeps the first copy as it was.
func TestToPostgresRefusesFullDatabase(t *testing.T) {
	path, _, want := stoppedVault(t)
	dst, dsn := mustPG(t)
	_, err := vaultcopy.ToPostgres(t.Context(), path, dsn, vaultcopy.Options{})
	require.NoError(t, err)

	_, err = vaultcopy.ToPostgres(t.Context(), path, dsn, vaultcopy.Options{})
	assert.Equal(t, sharevat.EConflict, sharevat.ErrorCode(err), "%v", err)
	assert.ErrorContains(t, err, "empty")
	assert.Equal(t, want, view(t, dst), "the first copy untouched")
}

// TestPepperCheck: on the way there CheckPepper is called after the copy
// with the options' pepper (the database holds the vault by then); on
// the way back it is called before anything is written, and its error
// ends the copy with no bbolt file made.
func TestPepperCheck(t *testing.T) {
	path, _, _ := stoppedVault(t)
	_, dsn := mustPG(t)
	var calls []string
	check := func(ctx context.Context, db vaultcopy.Claimer, p []byte) error {
		shares, err := db.(*pg.Store).Shares(ctx)
		require.NoError(t, err)
		calls = append(calls, string(p))
		if len(shares) != 5 {
			return errors.New("called before the copy")
		}
		return nil
	}
	_, err := vaultcopy.ToPostgres(t.Context(), path, dsn, vaultcopy.Options{Pepper: []byte("p1"), CheckPepper: check})
	require.NoError(t, err)

	wrong := errors.New("another pepper")
	back := filepath.Join(t.TempDir(), "back", "sharevat.db")
	_, err = vaultcopy.FromPostgres(t.Context(), dsn, back, vaultcopy.Options{Pepper: []byte("p2"),
		CheckPepper: func(ctx context.Context, db vaultcopy.Claimer, p []byte) error {
			calls = append(calls, string(p))
			return wrong
		}})
	assert.ErrorIs(t, err, wrong)
	assert.Equal(t, []string{"p1", "p2"}, calls)
	_, err = os.Stat(back)
	assert.ErrorIs(t, err, os.ErrNotExist, "no file made")
}

// TestFromPostgresRefusesExistingFile: the way back refuses a path that
// exists with EConflict and leaves the file as it was.
func TestFromPostgresRefusesExistingFile(t *testing.T) {
	_, dsn := mustPG(t)
	path := filepath.Join(t.TempDir(), "sharevat.db")
	require.NoError(t, os.WriteFile(path, []byte("mine"), 0o600))

	_, err := vaultcopy.FromPostgres(t.Context(), dsn, path, vaultcopy.Options{})
	assert.Equal(t, sharevat.EConflict, sharevat.ErrorCode(err), "%v", err)
	got, rerr := os.ReadFile(path)
	require.NoError(t, rerr)
	assert.Equal(t, "mine", string(got))
}
