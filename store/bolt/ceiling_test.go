package bolt_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/store/bolt"
)

// TestCommitCeiling: a short run commits transactions of the asked shape,
// reports consistent rates and latencies, and leaves no file behind.
func TestCommitCeiling(t *testing.T) {
	dir := t.TempDir()
	res, err := bolt.CommitCeiling(context.Background(), dir, bolt.CeilingShape{Puts: 3, ValueBytes: 200, Duration: 50 * time.Millisecond})
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
	res, err := bolt.CommitCeiling(ctx, t.TempDir(), bolt.CeilingShape{Puts: 1, Duration: time.Hour})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Txs)
	_, err = bolt.CommitCeiling(ctx, t.TempDir(), bolt.CeilingShape{Puts: 0, ValueBytes: 10, Duration: time.Second})
	assert.Error(t, err, "0 puts per transaction")
	_, err = bolt.CommitCeiling(ctx, t.TempDir(), bolt.CeilingShape{Puts: 1, Duration: time.Second, Pause: -time.Second})
	assert.Error(t, err, "a negative pause")
}

// TestCommitCeilingPaused: with a pause, the run idles between
// transactions: the rate counts the pauses, the latencies do not.
func TestCommitCeilingPaused(t *testing.T) {
	const pause = 50 * time.Millisecond
	res, err := bolt.CommitCeiling(context.Background(), t.TempDir(), bolt.CeilingShape{Puts: 1, Duration: 200 * time.Millisecond, Pause: pause})
	require.NoError(t, err)
	assert.Equal(t, pause, res.Pause)
	require.GreaterOrEqual(t, res.Txs, 2)
	assert.GreaterOrEqual(t, res.Elapsed, time.Duration(res.Txs-1)*pause, "the pauses are in the wall time")
	assert.InDelta(t, float64(res.Txs)/res.Elapsed.Seconds(), res.TxPerSec, 1e-6*res.TxPerSec, "so in the rate")
	assert.Less(t, res.P50, pause, "the latencies leave them out")
}
