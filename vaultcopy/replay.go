package vaultcopy

import (
	"context"

	"github.com/sharevat/sharevat"
)

// replayLimits accept every op the source holds: each passed the limits
// of its own append, whatever they were.
var replayLimits = sharevat.Limits{MaxBodyBytes: sharevat.HardMaxBatchBytes, MaxOpsPerBatch: 100_000,
	MaxBatchBytes: sharevat.HardMaxBatchBytes, MaxOpIDLen: 4096, MaxKeyLen: 16 << 10, MaxDependsOn: 10_000}

// replayLog appends s's ops after from again, one append per original
// batch (consecutive entries of one batch id and time), checking each
// lands at its cursor; it returns how many it appended.
func replayLog(ctx context.Context, src, dst sharevat.Store, s sharevat.Share, from sharevat.Cursor) (int, error) {
	n := 0
	err := readLog(ctx, src, s, from, func(page []sharevat.Entry) error {
		for len(page) > 0 {
			k := 1
			for k < len(page) && page[k].BatchID == page[0].BatchID && page[k].At.Equal(page[0].At) {
				k++
			}
			if err := appendReplayed(ctx, dst, s, page[:k]); err != nil {
				return err
			}
			n, page = n+k, page[k:]
		}
		return nil
	})
	return n, err
}

// appendReplayed appends one original batch at its original time.
func appendReplayed(ctx context.Context, dst sharevat.Store, s sharevat.Share, es []sharevat.Entry) error {
	b := &sharevat.Batch{BatchID: es[0].BatchID, Epoch: s.Epoch}
	for _, e := range es {
		b.Ops = append(b.Ops, sharevat.Op{OpID: e.OpID, Seq: e.Seq, Kind: e.Kind, Key: e.Key, Body: e.Body, Delete: e.Delete})
	}
	ack, err := dst.Append(ctx, sharevat.AppendRequest{Share: s.ID, Batch: b, Limits: replayLimits, Now: es[0].At})
	if err != nil {
		return err
	}
	for i, r := range ack.Results {
		if r.Status != sharevat.StatusApplied || r.Cursor != es[i].Cursor {
			return sharevat.Errorf(sharevat.EInternal, "op %q replayed as %v at cursor %d, not applied at %d", es[i].OpID, r.Status, r.Cursor, es[i].Cursor)
		}
	}
	return nil
}
