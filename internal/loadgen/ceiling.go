package loadgen

import (
	"context"

	"github.com/sharevat/sharevat/store/bolt"
)

// storageReport is the storage ceiling: bbolt's raw durable commit rate
// for transactions of the run's batch shape, on the vat's disk.
type storageReport struct {
	PutsPerTx  int     `json:"puts_per_tx"`
	ValueBytes int     `json:"value_bytes"`
	PauseMs    float64 `json:"pause_ms,omitempty"` // idle between transactions
	Dir        string  `json:"dir"`
	Seconds    float64 `json:"seconds"`
	Txs        int     `json:"txs"`
	TxPerSec   float64 `json:"tx_per_sec"`
	PutsPerSec float64 `json:"puts_per_sec"`
	P50Ms      float64 `json:"p50_ms"`
	P95Ms      float64 `json:"p95_ms"`
	P99Ms      float64 `json:"p99_ms"`
	MaxMs      float64 `json:"max_ms"`
}

// storageCeiling measures the storage ceiling in dir (beside the vat's
// data directory, so on the same disk).
func storageCeiling(ctx context.Context, dir string, sh bolt.CeilingShape) (storageReport, error) {
	r, err := bolt.CommitCeiling(ctx, dir, sh)
	if err != nil {
		return storageReport{}, err
	}
	return storageReport{
		PutsPerTx: r.Puts, ValueBytes: r.ValueBytes, PauseMs: ms(r.Pause), Dir: dir, Seconds: r.Elapsed.Seconds(), Txs: r.Txs,
		TxPerSec: r.TxPerSec, PutsPerSec: r.PutsPerSec,
		P50Ms: ms(r.P50), P95Ms: ms(r.P95), P99Ms: ms(r.P99), MaxMs: ms(r.Max),
	}, nil
}
