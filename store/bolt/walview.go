package bolt

import (
	"fmt"
	"slices"

	bbolt "go.etcd.io/bbolt"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// walView is the apply.Tx of one share for one append call when the
// write-ahead log is on: the true current state is the data file (a
// read transaction opened by the group), the overlay's tail of the
// share (durable, not yet in the data file), the stage (ops the calls
// before this one in the same group put), and the ops this call put.
// Put writes only to memory; the group writes the call's entries to the
// log as one record.
type walView struct {
	id       sharevat.ShareID
	epoch    sharevat.Epoch
	head     sharevat.Cursor
	earliest sharevat.Cursor
	tail     *tail // may be nil; read without the overlay's lock (see overlay)
	staged   *stagedShare
	log, ops *bbolt.Bucket
	sealed   *bbolt.Bucket    // nil until the first compaction
	put      []sharevat.Entry // this call's entries; never grown past its capacity
}

// stage is what the calls of one group have put so far, by share.
type stage map[sharevat.ShareID]*stagedShare

// stagedShare is one share's part of a stage.
type stagedShare struct {
	head sharevat.Cursor
	ops  map[string]*sharevat.Entry
}

var _ apply.Tx = (*walView)(nil)

// openWALView opens the view of s for a call of up to n ops.
func openWALView(tx *bbolt.Tx, s *sharevat.Share, t *tail, st stage, n int) (*walView, error) {
	ss := st[s.ID]
	if ss == nil {
		ss = &stagedShare{ops: map[string]*sharevat.Entry{}}
		st[s.ID] = ss
	}
	v := &walView{id: s.ID, epoch: s.Epoch, earliest: s.Earliest, tail: t, staged: ss,
		head: max(s.Head, t.head(), ss.head), put: make([]sharevat.Entry, 0, n)}
	var err error
	if v.log, err = shareBucket(tx, s.ID, bucketLog); err != nil {
		return nil, err
	}
	v.sealed = sealedBucket(tx, s.ID)
	v.ops, err = shareBucket(tx, s.ID, bucketOps)
	return v, err
}

// Epoch is the share's current epoch.
func (v *walView) Epoch() sharevat.Epoch { return v.epoch }

// Head is the cursor of the share's last op, staged ones included.
func (v *walView) Head() sharevat.Cursor { return v.head }

// Lookup finds an op id among the staged ops, then the overlay's tail,
// then the data file's op-id index (lookupOp, as logView.Lookup).
func (v *walView) Lookup(opID string) (sharevat.IndexedOp, bool, error) {
	if e := v.staged.ops[opID]; e != nil {
		return sharevat.IndexedOp{OpID: opID, Cursor: e.Cursor, Digest: e.Digest}, true, nil
	}
	if v.tail != nil {
		if e := v.tail.ops[opID]; e != nil {
			return sharevat.IndexedOp{OpID: opID, Cursor: e.Cursor, Digest: e.Digest}, true, nil
		}
	}
	return lookupOp(v.id, v.log, v.ops, v.sealed, v.earliest, opID)
}

// Put stages e at Head()+1, with a copy of its body (the caller's
// buffer may be reused once Append returns).
func (v *walView) Put(e *sharevat.Entry) error {
	if e.Cursor != v.head+1 || e.OpID == "" || len(v.put) == cap(v.put) {
		return fmt.Errorf("share %q: put at cursor %d with head %d", v.id, e.Cursor, v.head)
	}
	v.put = append(v.put, *e)
	p := &v.put[len(v.put)-1]
	p.Body = slices.Clone(e.Body)
	v.staged.ops[e.OpID] = p
	v.head, v.staged.head = e.Cursor, e.Cursor
	return nil
}

// undo takes this call's entries out of the stage (the call failed).
func (v *walView) undo() {
	for i := range v.put {
		delete(v.staged.ops, v.put[i].OpID)
	}
	if len(v.put) > 0 {
		v.staged.head = v.put[0].Cursor - 1
	}
	v.put = nil
}
