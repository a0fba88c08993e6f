package bolt

import (
	"bytes"
	"math"
	"slices"

	bbolt "go.etcd.io/bbolt"
)

// seal adds ops to the sealed index b. ops must be sorted by op id, and
// none may be in b already (ECorrupt if one is: an op id is applied
// once). Each op goes into the block whose key is the greatest at or
// below its id (the first block, for an id below every key); a block
// that grows past sealedBlockBytes is split. A block that grew at its
// end (all the new op ids after its old ones: ids that keep growing) or
// the last block is cut into full pieces, as the next ids will go after
// them too; any other into as few pieces as hold it, of equal size, so
// that one insert too many halves it and a run of new ids among old ones
// makes nearly full blocks.
func seal(b *bbolt.Bucket, ops []sealedOp) error {
	for len(ops) > 0 {
		key, val, next := sealedTarget(b, ops[0].id)
		n := len(ops)
		if next != nil {
			n, _ = slices.BinarySearchFunc(ops, next, func(op sealedOp, k []byte) int { return bytes.Compare(op.id, k) })
		}
		if err := sealInto(b, key, val, next == nil, ops[:n]); err != nil {
			return err
		}
		ops = ops[n:]
	}
	return nil
}

// sealedTarget finds the block that id goes into: its key and value (nil
// when b is empty) and the key of the block after it (nil for the last),
// all copied.
func sealedTarget(b *bbolt.Bucket, id []byte) (key, val, next []byte) {
	c := b.Cursor()
	k, v := c.Seek(id)
	switch {
	case k == nil:
		k, v = c.Last()
	case bytes.Equal(k, id):
		n, _ := c.Next()
		return slices.Clone(k), slices.Clone(v), slices.Clone(n)
	default:
		after := k
		if pk, pv := c.Prev(); pk != nil {
			return slices.Clone(pk), slices.Clone(pv), slices.Clone(after)
		}
		c.Seek(after) // id sorts before every block: it goes into the first
		n, _ := c.Next()
		return slices.Clone(after), slices.Clone(v), slices.Clone(n)
	}
	return slices.Clone(k), slices.Clone(v), nil
}

// sealInto merges ops into the block under key (none when key is nil)
// and writes the result back as one block or more.
func sealInto(b *bbolt.Bucket, key, val []byte, last bool, ops []sealedOp) error {
	merged, atEnd := ops, true
	if key != nil {
		old, err := decodeBlock(key, val)
		if err != nil {
			return err
		}
		atEnd = bytes.Compare(old[len(old)-1].id, ops[0].id) < 0
		if merged, err = mergeSealed(old, ops); err != nil {
			return err
		}
		if err := b.Delete(key); err != nil {
			return err
		}
	}
	limit := sealedBlockBytes
	if !last && !atEnd {
		total := 0
		_ = encodeBlocks(merged, math.MaxInt, func(k, v []byte) error { total = len(k) + len(v); return nil })
		if total > limit {
			pieces := (total + limit - 1) / limit
			limit = min(total/pieces+64, sealedBlockBytes)
		}
	}
	return encodeBlocks(merged, limit, func(k, v []byte) error { return b.Put(k, v) })
}

// sortSealed sorts ops by op id.
func sortSealed(ops []sealedOp) {
	slices.SortFunc(ops, func(a, b sealedOp) int { return bytes.Compare(a.id, b.id) })
}

// mergeSealed merges two lists sorted by op id; an op id in both is
// ECorrupt.
func mergeSealed(a, b []sealedOp) ([]sealedOp, error) {
	out := make([]sealedOp, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch bytes.Compare(a[0].id, b[0].id) {
		case -1:
			out, a = append(out, a[0]), a[1:]
		case 1:
			out, b = append(out, b[0]), b[1:]
		default:
			return nil, corruptf("sealed index: an op id sealed twice")
		}
	}
	return append(append(out, a...), b...), nil
}
