package bolt

import (
	"bytes"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// lastOp is the op of one (kind, key) the state must hold: the newest
// version (apply.Supersedes) of the readable log's ops since the key's
// last delete, over its value at the earliest cursor.
type lastOp struct {
	cursor sharevat.Cursor
	delete bool
	body   []byte // the winning version's (not copied: valid in the check's transaction)
	seen   bool   // the state holds the entity (set while checking it)
}

// fold records e, an op of lo's key read after the op lo names.
func (lo *lastOp) fold(e *sharevat.Entry) {
	if e.Delete || lo.delete || apply.Supersedes(e.Body, lo.body) {
		*lo = lastOp{cursor: e.Cursor, delete: e.Delete, body: e.Body}
	}
}

// priorOp is the op that gave key k its value at the earliest cursor:
// its base copy, else the state's value if it is of a compacted op;
// nil when the key had none (or its value is unreadable: the state and
// base checks report that).
func priorOp(b *shareBuckets, k []byte) *lastOp {
	v := b.state.Get(k)
	if b.base != nil && b.base.Get(k) != nil {
		v = b.base.Get(k)
	}
	if v == nil {
		return nil
	}
	at, err := entityCursor(v)
	body, berr := entityBody(v)
	if err != nil || berr != nil || at >= b.s.Earliest {
		return nil
	}
	return &lastOp{cursor: at, body: body}
}

// shareBuckets are one share's buckets, as Check finds them.
type shareBuckets struct {
	s                     *sharevat.Share
	log, ops, state, base *bbolt.Bucket
	sealed                *bbolt.Bucket // nil before the first compaction
}

// shareLog checks one share's log, op-id index and state.
func (c *checker) shareLog(tx *bbolt.Tx, s *sharevat.Share) {
	logs := tx.Bucket(bucketLogs).Bucket([]byte(s.ID))
	if s.Deleted {
		if logs != nil {
			c.add(s.ID, 0, "the share is deleted but its log is still there")
		}
		return
	}
	if logs == nil {
		c.add(s.ID, 0, "its log bucket is missing")
		return
	}
	b := shareBuckets{s: s, log: logs.Bucket(bucketLog), ops: logs.Bucket(bucketOps), state: logs.Bucket(bucketState), base: logs.Bucket(bucketBase), sealed: logs.Bucket(bucketSealed)}
	if b.log == nil || b.ops == nil || b.state == nil {
		c.add(s.ID, 0, "its log, op-id index or state bucket is missing")
		return
	}
	if s.Earliest > 1 && b.base == nil {
		c.add(s.ID, 0, "it was compacted but its base bucket is missing")
	}
	head, touched := c.logEntries(&b)
	c.opIndex(&b, head)
	c.state(&b, touched)
	c.base(&b, touched)
}

// logEntries checks every log record and the run of cursors, and
// returns the head and, for every (kind, key) in the log, the op the
// state must hold.
func (c *checker) logEntries(b *shareBuckets) (sharevat.Cursor, map[string]*lastOp) {
	id, next := b.s.ID, b.s.Earliest
	touched := map[string]*lastOp{}
	cur := b.log.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		e, err := decodeEntry(k, v)
		if err == nil {
			err = verifyEntry(&e, b.ops)
		}
		at := keyCursor(k, next)
		switch {
		case at < b.s.Earliest:
			c.add(id, at, "a log record before the earliest cursor %d", b.s.Earliest)
		case at == next+1:
			c.add(id, next, "this cursor is missing from the log")
		case at != next:
			c.add(id, next, "cursors %d to %d are missing from the log", next, at-1)
		}
		next = at + 1
		if err != nil {
			c.add(id, at, "%v", err)
			continue
		}
		if sharevat.IsStateKind(e.Kind) {
			k := stateKey(e.Kind, e.Key)
			lo := touched[string(k)]
			if lo == nil {
				lo = priorOp(b, k)
			}
			if lo == nil {
				lo = &lastOp{cursor: e.Cursor, delete: e.Delete, body: e.Body}
			}
			lo.fold(&e)
			touched[string(k)] = lo
		}
	}
	return next - 1, touched
}

// opIndex checks every op-id index entry against the log (from the index
// side: logEntries checked each record against the index).
func (c *checker) opIndex(b *shareBuckets, head sharevat.Cursor) {
	id, earliest := b.s.ID, b.s.Earliest
	compacted := make([]bool, earliest)
	n := 0
	_ = b.ops.ForEach(func(k, v []byte) error {
		at, d, err := decodeOpIndex(v)
		switch {
		case err != nil:
			c.add(id, 0, "op-id index: %v", err)
		case at == 0 || at > head:
			c.add(id, at, "the op-id index points past the log (head %d)", head)
		case at < earliest && compacted[at]:
			c.add(id, at, "two op ids of the op-id index share a compacted cursor")
		case at < earliest:
			compacted[at] = true
			n++
		default:
			c.indexed(b, k, at, d)
		}
		return nil
	})
	n += c.sealedIndex(b, compacted)
	if missing := int(earliest) - 1 - n; missing > 0 {
		c.add(id, 0, "%d compacted cursors have no op-id index entry", missing)
	}
}

// sealedIndex checks the sealed index: every block decodes, op ids
// increase from block to block, none is also in the live index, and
// each entry is at a compacted cursor no other op id has (marked in
// compacted). It returns the entries it counted.
func (c *checker) sealedIndex(b *shareBuckets, compacted []bool) int {
	if b.sealed == nil {
		return 0
	}
	id, n := b.s.ID, 0
	var last []byte
	_ = b.sealed.ForEach(func(k, v []byte) error {
		blk, err := decodeBlock(k, v)
		switch {
		case err != nil:
			c.add(id, 0, "%v", err)
			return nil
		case last != nil && bytes.Compare(last, k) >= 0:
			c.add(id, 0, "sealed index: blocks out of order")
		}
		last = blk[len(blk)-1].id
		for _, op := range blk {
			switch {
			case op.cursor >= b.s.Earliest:
				c.add(id, op.cursor, "the sealed index holds an op id at a cursor that was not compacted")
			case b.ops.Get(op.id) != nil:
				c.add(id, op.cursor, "an op id is in both the op-id index and the sealed index")
			case compacted[op.cursor]:
				c.add(id, op.cursor, "two op ids of the op-id index share a compacted cursor")
			default:
				compacted[op.cursor] = true
				n++
			}
		}
		return nil
	})
	return n
}

// indexed checks that the log record at cursor at names op id k with
// digest d.
func (c *checker) indexed(b *shareBuckets, k []byte, at sharevat.Cursor, d [32]byte) {
	e, err := decodeEntry(u64Key(uint64(at)), b.log.Get(u64Key(uint64(at))))
	switch {
	case err != nil:
		c.add(b.s.ID, at, "the op-id index points at a missing or bad log record")
	case e.OpID != string(k) || e.Digest != d:
		c.add(b.s.ID, at, "the op-id index and the log record disagree on the op id or digest")
	}
}

// state checks every entity against the op of its (kind, key) the log
// says it must be (lastOp); an entity whose record was compacted
// against its own digest.
func (c *checker) state(b *shareBuckets, touched map[string]*lastOp) {
	id := b.s.ID
	_ = b.state.ForEach(func(k, v []byte) error {
		ent, own, err := decodeEntityDigest(k, v)
		if err != nil {
			c.add(id, 0, "state: %v", err)
			return nil
		}
		lo := touched[string(k)]
		switch {
		case lo != nil && lo.delete:
			c.add(id, ent.Cursor, "a %s entity the delete at cursor %d removed is in the state", ent.Kind, lo.cursor)
		case lo != nil && lo.cursor != ent.Cursor:
			c.add(id, ent.Cursor, "a %s entity is from cursor %d; the newest version of its key is at %d", ent.Kind, ent.Cursor, lo.cursor)
		case lo == nil && ent.Cursor >= b.s.Earliest:
			c.add(id, ent.Cursor, "a %s entity no op in the log wrote", ent.Kind)
		case lo == nil && own == nil:
			c.add(id, ent.Cursor, "a %s entity of a compacted op carries no digest", ent.Kind)
		default:
			if err := verifyEntity(b.log, &ent, v); err != nil {
				c.add(id, ent.Cursor, "%v", err)
			}
		}
		if lo != nil {
			lo.seen = true
		}
		return nil
	})
	for _, lo := range touched {
		if !lo.delete && !lo.seen {
			c.add(id, lo.cursor, "the entity this op wrote is missing from the state")
		}
	}
}

// base checks the base bucket: entities of compacted ops, each with its
// digest, of keys written since (the state holds no compacted value of
// them).
func (c *checker) base(b *shareBuckets, touched map[string]*lastOp) {
	if b.base == nil {
		return
	}
	id := b.s.ID
	_ = b.base.ForEach(func(k, v []byte) error {
		ent, own, err := decodeEntityDigest(k, v)
		switch {
		case err != nil:
			c.add(id, 0, "base: %v", err)
		case own == nil || ent.Cursor >= b.s.Earliest:
			c.add(id, ent.Cursor, "base: a %s entity that is not of a compacted op", ent.Kind)
		case touched[string(k)] == nil:
			c.add(id, ent.Cursor, "base: a %s entity whose key no op since the earliest cursor wrote", ent.Kind)
		case compactedInState(b, k):
			c.add(id, ent.Cursor, "base: a %s entity the state also holds as compacted", ent.Kind)
		default:
			if d := contentDigest(ent.Kind, ent.Key, ent.Body, false); !bytes.Equal(d[:], own[:]) {
				c.add(id, ent.Cursor, "base: a %s entity does not match its digest", ent.Kind)
			}
		}
		return nil
	})
}

// compactedInState reports whether the state holds k at a compacted
// cursor.
func compactedInState(b *shareBuckets, k []byte) bool {
	v := b.state.Get(k)
	if v == nil {
		return false
	}
	at, err := entityCursor(v)
	return err == nil && at < b.s.Earliest
}
