package bolt

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// sealOp is op i of the sealed-index tests: id w1.<i>, body {"i":i}.
func sealOp(i int) sharevat.Op {
	return sharevat.Op{OpID: fmt.Sprintf("w1.%d", i), Kind: sharevat.KindEvent, Body: fmt.Appendf(nil, `{"i":%d}`, i)}
}

// appendSealOps appends ops from..to-1 of sealOp to share s, 500 a batch.
func appendSealOps(t *testing.T, db *DB, from, to int) {
	t.Helper()
	for i := from; i < to; i += 500 {
		b := &sharevat.Batch{BatchID: fmt.Sprint("b", i), Epoch: 1}
		for j := i; j < min(i+500, to); j++ {
			b.Ops = append(b.Ops, sealOp(j))
		}
		appendBatch(t, db, b)
	}
}

func appendBatch(t *testing.T, db *DB, b *sharevat.Batch) sharevat.Ack {
	t.Helper()
	ack, err := db.Append(t.Context(), sharevat.AppendRequest{Share: "s", Batch: b, Limits: sharevat.DefaultLimits(), Now: t0})
	must(t, err)
	return ack
}

// newSealDB opens a new data file with share s.
func newSealDB(t *testing.T, noWAL bool) (*DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sharevat.db")
	db, err := Open(path, Options{NoSync: true, NoWAL: noWAL})
	must(t, err)
	s := sharevat.Share{ID: "s", Epoch: 1}
	must(t, db.CreateShare(t.Context(), s, sharevat.Grant{ID: "o", ShareID: "s", Scope: sharevat.ScopeOwner, Epoch: 1}))
	return db, path
}

// indexSizes counts share s's live op-id index entries and sealed ones.
func indexSizes(t *testing.T, db *DB) (live, sealed int) {
	t.Helper()
	must(t, db.Flush(t.Context()))
	must(t, db.bdb.View(func(tx *bbolt.Tx) error {
		live = tx.Bucket(bucketLogs).Bucket([]byte("s")).Bucket(bucketOps).Stats().KeyN
		b := sealedBucket(tx, "s")
		if b == nil {
			return nil
		}
		return b.ForEach(func(k, v []byte) error {
			blk, err := decodeBlock(k, v)
			sealed += len(blk)
			return err
		})
	}))
	return live, sealed
}

// checkRetries sends, after ops 0..2999 with 0..2499 compacted, a batch
// of a compacted op again, a compacted op id with other content, an op
// depending on a compacted op, a live op again and a new op.
func checkRetries(t *testing.T, db *DB, round int) {
	t.Helper()
	other := sealOp(20)
	other.Body = []byte(`{"i":"other"}`)
	dep := sharevat.Op{OpID: fmt.Sprint("new", round), Kind: sharevat.KindEvent, Body: []byte(`{}`), DependsOn: []string{"w1.5"}}
	b := &sharevat.Batch{BatchID: fmt.Sprint("retry", round), Epoch: 1, Ops: []sharevat.Op{sealOp(10), other, dep, sealOp(2600), sealOp(0)}}
	ack := appendBatch(t, db, b)
	want := []struct {
		status sharevat.OpStatus
		cursor sharevat.Cursor
		reason sharevat.Reason
	}{
		{sharevat.StatusDuplicate, 11, sharevat.ReasonNone},
		{sharevat.StatusRejected, 21, sharevat.ReasonIDReused},
		{sharevat.StatusApplied, sharevat.Cursor(3001 + round), sharevat.ReasonNone},
		{sharevat.StatusDuplicate, 2601, sharevat.ReasonNone},
		{sharevat.StatusDuplicate, 1, sharevat.ReasonNone},
	}
	for i, w := range want {
		r := ack.Results[i]
		if r.Status != w.status || r.Cursor != w.cursor || r.Reason != w.reason {
			t.Errorf("round %d, op %s: %v at %d (%v), want %v at %d (%v)", round, b.Ops[i].OpID, r.Status, r.Cursor, r.Reason, w.status, w.cursor, w.reason)
		}
	}
}

// TestCompactSealsOpIDs: a compaction moves the dropped ops' op ids
// from the live index to the sealed index, which answers retries
// (duplicate, idReused) and dependencies as the live one did, through
// a reopen, with the write-ahead log and without; Check finds it sound.
func TestCompactSealsOpIDs(t *testing.T) {
	for _, noWAL := range []bool{false, true} {
		t.Run(fmt.Sprint("NoWAL=", noWAL), func(t *testing.T) {
			db, path := newSealDB(t, noWAL)
			appendSealOps(t, db, 0, 3000)
			for _, before := range []sharevat.Cursor{1001, 2501} {
				_, err := db.Compact(t.Context(), "s", before)
				must(t, err)
			}
			if live, sealed := indexSizes(t, db); live != 500 || sealed != 2500 {
				t.Fatalf("after compacting 2500 of 3000 ops: %d live and %d sealed op ids, want 500 and 2500", live, sealed)
			}
			checkRetries(t, db, 0)
			must(t, db.Close())
			if problems, err := Check(context.Background(), path, 0); err != nil || len(problems) > 0 {
				t.Fatalf("Check: %v %v", problems, err)
			}
			db, err := Open(path, Options{NoSync: true, NoWAL: noWAL})
			must(t, err)
			defer db.Close()
			checkRetries(t, db, 1)
		})
	}
}

// format3File leaves a file as a format-3 build would have: ops 0..2999
// of share s with 0..2499 compacted, their op ids in the live index with
// whole digests, no sealed index.
func format3File(t *testing.T) string {
	t.Helper()
	db, path := newSealDB(t, true)
	appendSealOps(t, db, 0, 3000)
	_, err := db.Compact(t.Context(), "s", 2501)
	must(t, err)
	must(t, db.bdb.Update(func(tx *bbolt.Tx) error {
		logs := tx.Bucket(bucketLogs).Bucket([]byte("s"))
		ops := logs.Bucket(bucketOps)
		for i := range 2500 {
			op := sealOp(i)
			if err := ops.Put([]byte(op.OpID), opIndexValue(sharevat.Cursor(i+1), apply.Digest(&op))); err != nil {
				return err
			}
		}
		if err := logs.DeleteBucket(bucketSealed); err != nil {
			return err
		}
		return tx.Bucket(bucketMeta).Put(keyFormat, []byte{3})
	}))
	must(t, db.Close())
	return path
}

// TestFormat3Upgrade: opening a format-3 file marks it format 4 and
// moves its compacted op ids to the sealed index, in transactions of
// sealChunk op ids; retries are answered the same before and after, a
// move cut short is finished by the next Open, and Check finds the file
// sound at every step.
func TestFormat3Upgrade(t *testing.T) {
	path := format3File(t)
	if problems, err := Check(context.Background(), path, 0); err != nil || len(problems) > 0 {
		t.Fatalf("Check of the format-3 file: %v %v", problems, err)
	}
	old := sealChunk
	sealChunk = 300
	t.Cleanup(func() { sealChunk = old })
	db, err := Open(path, Options{NoSync: true, NoWAL: true})
	must(t, err)
	if live, sealed := indexSizes(t, db); live != 500 || sealed != 2500 {
		t.Fatalf("after the upgrade: %d live and %d sealed op ids, want 500 and 2500", live, sealed)
	}
	must(t, db.bdb.View(func(tx *bbolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if f := meta.Get(keyFormat); len(f) != 1 || f[0] != dataFormat || meta.Get(keySealing) != nil {
			t.Errorf("after the upgrade: format %v, sealing mark %v; want [%d] and none", f, meta.Get(keySealing), dataFormat)
		}
		return nil
	}))
	checkRetries(t, db, 0)
	must(t, db.Close())
	if problems, err := Check(context.Background(), path, 0); err != nil || len(problems) > 0 {
		t.Fatalf("Check after the upgrade: %v %v", problems, err)
	}
}

// TestFormat3UpgradeCutShort: a move a crash cut short (format 4, the
// mark still there, some compacted op ids in each index) is a sound
// file, answers retries from both indexes, and the next Open finishes it.
func TestFormat3UpgradeCutShort(t *testing.T) {
	path := format3File(t)
	bdb, err := bbolt.Open(path, 0o600, nil)
	must(t, err)
	must(t, bdb.Update(func(tx *bbolt.Tx) error {
		if err := initBuckets(tx); err != nil { // format 4 and the mark
			return err
		}
		s := sharevat.Share{ID: "s", Earliest: 2501}
		_, _, err := sealShareChunk(tx, &s, []byte("w1.2")) // w1.2…w1.999…: part of them
		return err
	}))
	must(t, bdb.Close())
	if problems, err := Check(context.Background(), path, 0); err != nil || len(problems) > 0 {
		t.Fatalf("Check of a move cut short: %v %v", problems, err)
	}
	db, err := Open(path, Options{NoSync: true, NoWAL: true})
	must(t, err)
	defer db.Close()
	if live, sealed := indexSizes(t, db); live != 500 || sealed != 2500 {
		t.Fatalf("after the move: %d live and %d sealed op ids, want 500 and 2500", live, sealed)
	}
	checkRetries(t, db, 0)
}
