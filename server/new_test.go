package server_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/server"
)

// TestNewRefusesLostDataFile: New on a data directory whose data file
// was lost (the pepper is still there) fails with the reason and
// leaves nothing open or written: a second New on the same directory
// fails the same way, not on a lock, and no admin token appears.
func TestNewRefusesLostDataFile(t *testing.T) {
	data := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(data, server.PepperFile), make([]byte, 32), 0o600))
	for range 2 {
		_, err := server.New(context.Background(), server.DefaultConfig(data))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "the data file was lost or truncated")
	}
	_, err := os.Stat(filepath.Join(data, server.AdminFile))
	assert.True(t, os.IsNotExist(err), "no admin token: %v", err)
}

// TestNewClosesStoreOnFailure: when New fails after opening the store
// (here: a pepper file that is too short), the bbolt file is closed
// again, so the next New with a good pepper opens it at once.
func TestNewClosesStoreOnFailure(t *testing.T) {
	data := t.TempDir()
	cfg := server.DefaultConfig(data)
	srv, err := server.New(context.Background(), cfg)
	require.NoError(t, err)
	require.NoError(t, srv.Close(context.Background()))
	pepper := filepath.Join(data, server.PepperFile)
	good, err := os.ReadFile(pepper)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(pepper, good[:4], 0o600))
	_, err = server.New(context.Background(), cfg)
	require.ErrorContains(t, err, "is damaged")
	require.NoError(t, os.WriteFile(pepper, good, 0o600))
	srv, err = server.New(context.Background(), cfg)
	require.NoError(t, err, "the failed New released the data file")
	require.NoError(t, srv.Close(context.Background()))
}
