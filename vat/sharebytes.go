package vat

import (
	"context"
	"sync"

	"github.com/sharevat/sharevat"
)

// The bytes-per-share quota (sharevat.Share.MaxBytes, set from the
// creation token's bytes per share) is the vat's, not a door's: every
// append, whatever door it came through, passes checkBytes. A share's
// bytes are the Op.Size of each op its readable log holds; a compaction
// gives bytes back.
//
// The vat counts a limited share's bytes in memory: read from the store
// at the first append it sees (the log of a limited share is bounded by
// its limit, so the read is too), then kept by adding what each append
// applied; a compaction forgets the count. Appends to one limited share
// are serialized by its count's lock, held across the store's append, so
// that two cannot both pass the check. On a store several vats share,
// each vat counts what it appended since its own read: the vats together
// may pass a share's limit by what the others appended meanwhile.

// byteCounts are the counts of the limited shares this vat appended to.
type byteCounts struct {
	mu sync.Mutex
	m  map[sharevat.ShareID]*byteCount
}

// byteCount is one share's count; mu is held across a check and the
// append it admits.
type byteCount struct {
	mu    sync.Mutex
	max   int64
	known bool
	bytes int64
}

// of returns share id's count, made on first use with limit max.
func (c *byteCounts) of(id sharevat.ShareID, max int64) *byteCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[sharevat.ShareID]*byteCount)
	}
	bc := c.m[id]
	if bc == nil {
		bc = &byteCount{max: max}
		c.m[id] = bc
	}
	return bc
}

// forget drops share id's count (compacted or deleted): the next append
// reads it again.
func (c *byteCounts) forget(id sharevat.ShareID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// appendWithin runs the append of batch to share id, within the share's
// byte limit if it has one: over it, the batch is refused whole
// (ETooLarge) and nothing is applied.
func (v *Vat) appendWithin(ctx context.Context, id sharevat.ShareID, batch *sharevat.Batch, run func() (sharevat.Ack, error)) (sharevat.Ack, error) {
	max, err := v.maxBytes(ctx, id)
	if err != nil {
		return sharevat.Ack{}, err
	}
	if max <= 0 {
		return run()
	}
	bc := v.byteCounts.of(id, max)
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if err := v.checkBytes(ctx, id, bc, batch); err != nil {
		return sharevat.Ack{}, err
	}
	ack, err := run()
	if err == nil {
		bc.bytes += appliedBytes(batch, ack)
	}
	return ack, err
}

// checkBytes refuses batch if the share would hold more than its limit;
// a duplicate op is charged here too, as the vat cannot tell it apart
// before the store does.
func (v *Vat) checkBytes(ctx context.Context, id sharevat.ShareID, bc *byteCount, batch *sharevat.Batch) error {
	if !bc.known {
		n, err := v.logBytes(ctx, id)
		if err != nil {
			return err
		}
		bc.bytes, bc.known = n, true
	}
	need := int64(0)
	for i := range batch.Ops {
		need += int64(batch.Ops[i].Size())
	}
	if bc.bytes+need > bc.max {
		v.obs.LimitHit(LimitShareBytes)
		return sharevat.Errorf(sharevat.ETooLarge, "this share may hold %d bytes of ops (its creation token's quota); it holds %d and this batch has %d", bc.max, bc.bytes, need)
	}
	return nil
}

// appliedBytes is the Op.Size of the ops ack says were applied.
func appliedBytes(batch *sharevat.Batch, ack sharevat.Ack) int64 {
	n := int64(0)
	for i, r := range ack.Results {
		if r.Status == sharevat.StatusApplied && i < len(batch.Ops) {
			n += int64(batch.Ops[i].Size())
		}
	}
	return n
}

// logBytes reads share id's readable log and sums its ops' sizes.
func (v *Vat) logBytes(ctx context.Context, id sharevat.ShareID) (int64, error) {
	sh, err := v.store.Share(ctx, id)
	if err != nil {
		return 0, err
	}
	n, after := int64(0), sh.Earliest-1
	for {
		es, head, err := v.store.Read(ctx, id, after, 1000)
		if err != nil {
			return 0, err
		}
		for i := range es {
			op := sharevat.Op{OpID: es[i].OpID, Kind: es[i].Kind, Key: es[i].Key, Body: es[i].Body}
			n += int64(op.Size())
			after = es[i].Cursor
		}
		if len(es) == 0 || after >= head {
			return n, nil
		}
	}
}

// forgetBytes forgets share id's count and limit (deleted).
func (v *Vat) forgetBytes(id sharevat.ShareID) {
	v.byteCounts.forget(id)
	v.limitsMu.Lock()
	defer v.limitsMu.Unlock()
	delete(v.limits, id)
}

// maxBytes is share id's byte limit (0: none), read once: it never
// changes.
func (v *Vat) maxBytes(ctx context.Context, id sharevat.ShareID) (int64, error) {
	v.limitsMu.RLock()
	max, ok := v.limits[id]
	v.limitsMu.RUnlock()
	if ok {
		return max, nil
	}
	sh, err := v.store.Share(ctx, id)
	if err != nil {
		return 0, err
	}
	v.limitsMu.Lock()
	defer v.limitsMu.Unlock()
	if v.limits == nil {
		v.limits = make(map[sharevat.ShareID]int64)
	}
	v.limits[id] = sh.MaxBytes
	return sh.MaxBytes, nil
}
