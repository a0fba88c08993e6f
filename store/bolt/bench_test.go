package bolt_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/bolt"
)

// body200 is a 200-byte JSON body.
var body200 = []byte(`{"text":"` + strings.Repeat("x", 200-11) + `"}`)

// benchDB opens a DB for a benchmark, with share "s".
func benchDB(b *testing.B, noSync bool) *bolt.DB {
	db := MustOpenAt(b, filepath.Join(b.TempDir(), "sharevat.db"), bolt.Options{NoSync: noSync})
	createShare(b, db, "s")
	return db
}

// eventBatch returns n events with 200-byte bodies and ids <prefix>-<i>.
func eventBatch(prefix string, n int) *sharevat.Batch {
	ops := make([]sharevat.Op, n)
	for i := range ops {
		ops[i] = sharevat.Op{OpID: fmt.Sprintf("%s-%d", prefix, i), Seq: uint32(i), Kind: sharevat.KindEvent, Body: body200}
	}
	return &sharevat.Batch{BatchID: prefix, Epoch: 1, Ops: ops}
}

// reportOps reports applied ops per second.
func reportOps(b *testing.B, ops int) {
	b.ReportMetric(float64(ops)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkAppend appends one batch per iteration, durably (sync) and
// with NoSync.
func BenchmarkAppend(b *testing.B) {
	for _, sync := range []bool{true, false} {
		for _, n := range []int{1, 100} {
			b.Run(fmt.Sprintf("ops=%d/sync=%v", n, sync), func(b *testing.B) {
				db := benchDB(b, !sync)
				i := 0
				for b.Loop() {
					appendOps(b, db, "s", 1, eventBatch(fmt.Sprint(i), n).Ops...)
					i++
				}
				reportOps(b, i*n)
			})
		}
	}
}

// BenchmarkAppendParallel appends 1-op batches durably from many
// goroutines, to show group commit.
func BenchmarkAppendParallel(b *testing.B) {
	db := benchDB(b, false)
	var next atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			_, err := db.Append(context.Background(), sharevat.AppendRequest{
				Share: "s", Batch: eventBatch(fmt.Sprint(next.Add(1)), 1), Limits: sharevat.DefaultLimits(),
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	reportOps(b, int(next.Load()))
}

// BenchmarkRead reads pages of 100 entries from a log of 10,000.
func BenchmarkRead(b *testing.B) {
	db := benchDB(b, true)
	for i := range 100 {
		appendOps(b, db, "s", 1, eventBatch(fmt.Sprint(i), 100).Ops...)
	}
	i := 0
	for b.Loop() {
		entries, _, err := db.Read(context.Background(), "s", sharevat.Cursor(i%99*100), 100)
		if err != nil || len(entries) != 100 {
			b.Fatalf("Read: %d entries, %v", len(entries), err)
		}
		i++
	}
	reportOps(b, i*100)
}

// BenchmarkSnapshot snapshots a state of 1,000 entities.
func BenchmarkSnapshot(b *testing.B) {
	db := benchDB(b, true)
	for i := range 10 {
		batch := eventBatch(fmt.Sprint(i), 100)
		for j := range batch.Ops {
			batch.Ops[j].Kind, batch.Ops[j].Key = sharevat.KindMessage, fmt.Sprint(i*100+j)
		}
		appendOps(b, db, "s", 1, batch.Ops...)
	}
	for b.Loop() {
		ents, _, err := db.Snapshot(context.Background(), "s")
		if err != nil || len(ents) != 1000 {
			b.Fatalf("Snapshot: %d entities, %v", len(ents), err)
		}
	}
}
