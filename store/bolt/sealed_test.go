package bolt

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
)

// idShapes are op ids as clients make them: a writer's counter (the
// load generator's), time-ordered fixed-width ids (opencode's), random
// ones (UUIDs).
var idShapes = []struct {
	name    string
	id      func(r *rand.Rand, i int) string
	maxCost float64 // bytes of page per op id the sealed index may take
}{
	{"counter", func(_ *rand.Rand, i int) string { return fmt.Sprintf("w3.%d.0", i) }, 24},
	{"time-ordered", func(r *rand.Rand, i int) string {
		return fmt.Sprintf("prt_%012x%014x", 0x18f00000000+i*7, r.Uint64()>>8)
	}, 40},
	{"random", func(r *rand.Rand, _ int) string {
		return fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64())
	}, 60},
}

// sealedOpsOf makes n entries of ids of shape, at cursors 1..n.
func sealedOpsOf(shape func(*rand.Rand, int) string, n int) []sealedOp {
	r := rand.New(rand.NewPCG(1, 2))
	ops := make([]sealedOp, n)
	for i := range ops {
		id := shape(r, i)
		d := sha256.Sum256([]byte(id))
		ops[i] = newSealedOp([]byte(id), sharevat.Cursor(i+1), &d)
	}
	return ops
}

// sealInBatches seals ops as compactions do: in cursor order, batch ops
// at a time, each batch sorted by op id.
func sealInBatches(t *testing.T, b *bbolt.Bucket, ops []sealedOp, batch int) {
	t.Helper()
	for i := 0; i < len(ops); i += batch {
		part := append([]sealedOp(nil), ops[i:min(i+batch, len(ops))]...)
		sortSealed(part)
		if err := seal(b, part); err != nil {
			t.Fatal(err)
		}
	}
}

// withSealedBucket runs write in a read-write transaction on a new
// file's bucket, then, if not nil, read in a read transaction after it.
func withSealedBucket(t *testing.T, write, read func(b *bbolt.Bucket)) {
	t.Helper()
	bdb, err := bbolt.Open(filepath.Join(t.TempDir(), "sealed.db"), 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	if err := bdb.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket(bucketSealed)
		if err == nil {
			write(b)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if read != nil {
		_ = bdb.View(func(tx *bbolt.Tx) error { read(tx.Bucket(bucketSealed)); return nil })
	}
}

// TestSealedIndex seals 30,000 op ids of each shape in compaction-sized
// batches; every one is then found with its cursor and digest prefix,
// ids never sealed are not, the blocks are well formed and page-sized,
// and the index takes at most maxCost bytes of page per op id.
func TestSealedIndex(t *testing.T) {
	for _, shape := range idShapes {
		t.Run(shape.name, func(t *testing.T) {
			ops := sealedOpsOf(shape.id, 30000)
			withSealedBucket(t, func(b *bbolt.Bucket) { sealInBatches(t, b, ops, 4096) }, func(b *bbolt.Bucket) {
				for i := range ops {
					ix, ok, err := sealedLookup(b, ops[i].id)
					if err != nil || !ok || ix.Cursor != ops[i].cursor || !ix.Short || [tagLen]byte(ix.Digest[:tagLen]) != ops[i].tag {
						t.Fatalf("lookup %q = %+v, %v, %v; want cursor %d", ops[i].id, ix, ok, err, ops[i].cursor)
					}
				}
				for _, absent := range absentIDs(ops) {
					if _, ok, err := sealedLookup(b, absent); ok || err != nil {
						t.Fatalf("lookup of %q, never sealed: found %v, err %v", absent, ok, err)
					}
				}
				n := checkBlocks(t, b)
				if n != len(ops) {
					t.Fatalf("the blocks hold %d op ids, want %d", n, len(ops))
				}
				st := b.Stats()
				cost := float64(st.LeafAlloc+st.BranchAlloc) / float64(len(ops))
				t.Logf("%s: %d blocks on %d pages, %.1f bytes of page per op id (%.1f in use); the live index's layout takes %.1f",
					shape.name, st.KeyN, st.LeafPageN+st.LeafOverflowN, cost, float64(st.LeafInuse)/float64(len(ops)), liveIndexCost(t, ops))
				if cost > shape.maxCost {
					t.Errorf("the sealed index takes %.1f bytes per op id, want at most %.0f", cost, shape.maxCost)
				}
			})
		})
	}
}

// liveIndexCost is what ops take, in bytes of page per op id, in the
// live index's layout (one 40-byte entry per op id, put in cursor
// order, as format 3 kept compacted ones): the figure to compare with.
func liveIndexCost(t *testing.T, ops []sealedOp) float64 {
	bdb, err := bbolt.Open(filepath.Join(t.TempDir(), "live.db"), 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	var cost float64
	err = bdb.Update(func(tx *bbolt.Tx) error {
		b, err := tx.CreateBucket(bucketOps)
		for i := 0; err == nil && i < len(ops); i++ {
			err = b.Put(ops[i].id, opIndexValue(ops[i].cursor, [32]byte{}))
		}
		return err
	})
	if err == nil {
		err = bdb.View(func(tx *bbolt.Tx) error {
			st := tx.Bucket(bucketOps).Stats()
			cost = float64(st.LeafAlloc+st.BranchAlloc) / float64(len(ops))
			return nil
		})
	}
	if err != nil {
		t.Fatal(err)
	}
	return cost
}

// absentIDs are ids near the sealed ones that were never sealed: before
// the first, after the last, and each of some ids with a byte added or
// its last byte changed.
func absentIDs(ops []sealedOp) [][]byte {
	out := [][]byte{{}, {0}, {0xff, 0xff}}
	for i := 0; i < len(ops); i += 97 {
		id := ops[i].id
		out = append(out, append(bytes.Clone(id), 'x'), append(bytes.Clone(id[:len(id)-1]), id[len(id)-1]^0x40), id[:len(id)-1])
	}
	return out
}

// checkBlocks decodes every block of b, checks that op ids increase
// across blocks and that each block fits sealedBlockBytes, and returns
// how many entries they hold.
func checkBlocks(t *testing.T, b *bbolt.Bucket) int {
	t.Helper()
	var last []byte
	n := 0
	err := b.ForEach(func(k, v []byte) error {
		blk, err := decodeBlock(k, v)
		if err != nil {
			return err
		}
		if last != nil && bytes.Compare(last, k) >= 0 {
			return fmt.Errorf("block %q does not sort after the block before it (last %q)", k, last)
		}
		if len(k)+len(v) > sealedBlockBytes && len(blk) > 1 {
			return fmt.Errorf("block %q of %d entries takes %d bytes", k, len(blk), len(k)+len(v))
		}
		last, n = blk[len(blk)-1].id, n+len(blk)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSealTwice: sealing an op id already sealed is damage, not a second
// entry.
func TestSealTwice(t *testing.T) {
	ops := sealedOpsOf(idShapes[0].id, 1000)
	withSealedBucket(t, func(b *bbolt.Bucket) {
		sealInBatches(t, b, ops, 1000)
		err := seal(b, []sealedOp{ops[500]})
		if !errors.Is(err, errCorrupt) {
			t.Fatalf("sealing %q again: %v, want corrupt", ops[500].id, err)
		}
	}, nil)
}

// FuzzSealedBlock: no bytes make decoding a block panic, and a block
// that decodes holds increasing op ids, the first its key, each of
// which findInBlock finds at its cursor, and finds nothing just after.
func FuzzSealedBlock(f *testing.F) {
	ops := sealedOpsOf(idShapes[1].id, 50)
	_ = encodeBlocks(ops, 1<<20, func(k, v []byte) error { f.Add(k, v); return nil })
	f.Add([]byte("a"), []byte{1, 1, 1, 0, 2})
	f.Fuzz(func(t *testing.T, key, v []byte) {
		blk, err := decodeBlock(key, v)
		if err != nil {
			return
		}
		if !bytes.Equal(blk[0].id, key) {
			t.Fatalf("first op id %q is not the key %q", blk[0].id, key)
		}
		for i := 1; i < len(blk); i++ {
			if bytes.Compare(blk[i-1].id, blk[i].id) >= 0 {
				t.Fatalf("op ids %q, %q out of order", blk[i-1].id, blk[i].id)
			}
		}
		for i, op := range blk {
			at, _, ok, err := findInBlock(key, v, op.id)
			if err != nil || !ok || at != op.cursor {
				t.Fatalf("findInBlock(%q) = %d, %v, %v; want cursor %d", op.id, at, ok, err, op.cursor)
			}
			after := append(bytes.Clone(op.id), 0)
			if _, _, ok, err := findInBlock(key, v, after); err != nil || (ok && (i+1 == len(blk) || !bytes.Equal(blk[i+1].id, after))) {
				t.Fatalf("findInBlock(%q), never sealed: %v, %v", after, ok, err)
			}
		}
	})
}

// BenchmarkSealedLookup: finding an op id (present, then absent: what
// every new op of a compacted share costs) in a sealed index of 100,000
// time-ordered op ids, against bbolt's Get in the live index's layout.
func BenchmarkSealedLookup(b *testing.B) {
	ops := sealedOpsOf(idShapes[1].id, 100000)
	bdb, err := bbolt.Open(filepath.Join(b.TempDir(), "sealed.db"), 0o600, &bbolt.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(tx *bbolt.Tx) error {
		sealed, err := tx.CreateBucket(bucketSealed)
		live, _ := tx.CreateBucket(bucketOps)
		for i := 0; err == nil && i < len(ops); i += 4096 {
			part := append([]sealedOp(nil), ops[i:min(i+4096, len(ops))]...)
			sortSealed(part)
			err = seal(sealed, part)
		}
		for i := 0; err == nil && i < len(ops); i++ {
			err = live.Put(ops[i].id, opIndexValue(ops[i].cursor, [32]byte{}))
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	tx, err := bdb.Begin(false)
	if err != nil {
		b.Fatal(err)
	}
	defer tx.Rollback()
	sealed, live := tx.Bucket(bucketSealed), tx.Bucket(bucketOps)
	for _, bc := range []struct {
		name string
		id   func(i int) []byte
	}{
		{"present", func(i int) []byte { return ops[(i*7919)%len(ops)].id }},
		{"absent", func(i int) []byte { return append(bytes.Clone(ops[(i*7919)%len(ops)].id), 'x') }},
	} {
		ids := make([][]byte, 4096)
		for i := range ids {
			ids[i] = bc.id(i)
		}
		b.Run("sealed/"+bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if _, ok, err := sealedLookup(sealed, ids[i%len(ids)]); err != nil || ok != (bc.name == "present") {
					b.Fatal(ok, err)
				}
			}
		})
		b.Run("live/"+bc.name, func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				if (live.Get(ids[i%len(ids)]) != nil) != (bc.name == "present") {
					b.Fatal("wrong answer")
				}
			}
		})
	}
}
