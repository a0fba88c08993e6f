package bolt

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"time"

	bbolt "go.etcd.io/bbolt"
)

// CeilingShape is the load CommitCeiling runs.
type CeilingShape struct {
	Puts       int           // puts per transaction, at least 1
	ValueBytes int           // bytes per value
	Duration   time.Duration // how long to run (at least one transaction)
	// Pause, if set, idles the process between transactions, as a server
	// idles between sequential calls; latencies leave it out, rates not.
	Pause time.Duration
}

// CeilingResult is the raw commit rate of bbolt on one disk: what no
// store built on it can beat for transactions of the same shape.
type CeilingResult struct {
	Puts       int           // puts per transaction
	ValueBytes int           // bytes per value
	Pause      time.Duration // idle time between transactions
	Txs        int           // transactions committed
	Elapsed    time.Duration // wall time of the loop
	TxPerSec   float64
	PutsPerSec float64
	P50        time.Duration // per-transaction latency, fsync included
	P95        time.Duration
	P99        time.Duration
	Max        time.Duration
}

// CommitCeiling measures the storage ceiling `sharevat bench` compares
// the store against: it opens a fresh bbolt file in dir (so on the disk
// the caller chose), runs sequential durable transactions of sh.Puts puts
// of sh.ValueBytes each for sh.Duration (at least one transaction; fewer
// if ctx ends), under 8-byte big-endian keys like the log's, and removes
// the file. Options are the ones Open uses: bbolt's defaults, fsync on
// commit.
func CommitCeiling(ctx context.Context, dir string, sh CeilingShape) (CeilingResult, error) {
	if sh.Puts < 1 || sh.ValueBytes < 0 || sh.Duration <= 0 || sh.Pause < 0 {
		return CeilingResult{}, fmt.Errorf("bolt: ceiling: want puts ≥ 1, value bytes ≥ 0, duration > 0, pause ≥ 0")
	}
	f, err := os.CreateTemp(dir, "ceiling-*.db")
	if err != nil {
		return CeilingResult{}, fmt.Errorf("bolt: ceiling: %w", err)
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	bo := boltOptions(Options{LockTimeout: DefaultLockTimeout})
	bdb, err := bbolt.Open(path, 0o600, &bo)
	if err != nil {
		return CeilingResult{}, fmt.Errorf("bolt: ceiling: open: %w", err)
	}
	defer bdb.Close()
	lat, elapsed, err := commitLoop(ctx, bdb, sh)
	if err != nil {
		return CeilingResult{}, fmt.Errorf("bolt: ceiling: %w", err)
	}
	return ceilingResult(sh, lat, elapsed), nil
}

// commitLoop runs the transactions and returns each one's latency.
func commitLoop(ctx context.Context, bdb *bbolt.DB, sh CeilingShape) ([]time.Duration, time.Duration, error) {
	value := make([]byte, sh.ValueBytes)
	for i := range value {
		value[i] = 'a' + byte(i%26)
	}
	name := []byte("log")
	var next uint64
	var lat []time.Duration
	start := time.Now()
	for len(lat) == 0 || (time.Since(start) < sh.Duration && ctx.Err() == nil) {
		if len(lat) > 0 && sh.Pause > 0 {
			time.Sleep(sh.Pause)
		}
		t0 := time.Now()
		err := bdb.Update(func(tx *bbolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists(name)
			if err != nil {
				return err
			}
			for range sh.Puts {
				next++
				if err := b.Put(binary.BigEndian.AppendUint64(nil, next), value); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return nil, 0, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, time.Since(start), nil
}

func ceilingResult(sh CeilingShape, lat []time.Duration, elapsed time.Duration) CeilingResult {
	slices.Sort(lat)
	at := func(q float64) time.Duration { return lat[min(len(lat)-1, int(q*float64(len(lat))))] }
	secs := elapsed.Seconds()
	return CeilingResult{
		Puts: sh.Puts, ValueBytes: sh.ValueBytes, Pause: sh.Pause, Txs: len(lat), Elapsed: elapsed,
		TxPerSec: float64(len(lat)) / secs, PutsPerSec: float64(len(lat)*sh.Puts) / secs,
		P50: at(0.50), P95: at(0.95), P99: at(0.99), Max: lat[len(lat)-1],
	}
}
