package bolt_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"sharevat/store/bolt"
)

// TestCommitCeiling: a short run commits transactions of the asked shape,
// reports consistent rates and latencies, and leaves no file behind.
func TestCommitCeiling(t *testing.T) {
	dir := t.TempDir()
	res, err := bolt.CommitCeiling(context.Background(), dir, 3, 200, 50*time.Millisecond)
	require.NoError(t, err)
	assert.Equal(t, 3, res.Puts)
	assert.Equal(t, 200, res.ValueBytes)
	assert.Positive(t, res.Txs)
	assert.InDelta(t, 3*res.TxPerSec, res.PutsPerSec, 1e-6*res.PutsPerSec)
	assert.Positive(t, res.P50)
	assert.LessOrEqual(t, res.P50, res.P95)
	assert.LessOrEqual(t, res.P95, res.P99)
	assert.LessOrEqual(t, res.P99, res.Max)
	files, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, files, "the ceiling's data file should be removed")
}

// TestCommitCeilingCanceled: a canceled context still yields one
// transaction, and bad arguments are refused.
func TestCommitCeilingCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := bolt.CommitCeiling(ctx, t.TempDir(), 1, 0, time.Hour)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Txs)
	_, err = bolt.CommitCeiling(ctx, t.TempDir(), 0, 10, time.Second)
	assert.Error(t, err, "0 puts per transaction")
}
