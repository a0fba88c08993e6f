package pg

import (
	"bytes"
	"fmt"
	"time"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
	"github.com/sharevat/sharevat/store/internal/core"
)

// shareView is the apply.Tx of one share inside one append transaction,
// whose row the transaction holds locked. It answers from memory: the
// share's row, the op-id index entries of the group's op ids (read when
// the row was locked: nobody else can add one before the commit) and
// the entries put since, which flush writes at the end of the group.
// Lookup thus finds ops put earlier in the group, and Head advances with
// every Put.
type shareView struct {
	s       sharevat.Share
	known   map[string]indexed
	current map[string][]byte // kind ‖ 0 ‖ key → the state's body, of the keys the group upserts
	entries []*sharevat.Entry // put by this group, in cursor order
	touched bool              // an append applied ops: move updated_at
	now     time.Time         // the latest time of those appends
}

// indexed is one op-id index entry and the log row it points at.
type indexed struct {
	cursor    int64
	digest    []byte
	inLog     bool   // the log row at cursor exists
	logOp     string // its op id
	logDigest []byte // its digest
	put       bool   // put by this group: nothing to check
}

var _ apply.Tx = (*shareView)(nil)

func newShareView(s sharevat.Share) *shareView {
	return &shareView{s: s, known: map[string]indexed{}, current: map[string][]byte{}}
}

// Epoch is the share's current epoch.
func (v *shareView) Epoch() sharevat.Epoch { return v.s.Epoch }

// Head is the cursor of the share's last op, including ops put in this
// transaction.
func (v *shareView) Head() sharevat.Cursor { return v.s.Head }

// Lookup finds an op id in the op-id index, and checks what it found
// against the log row it points at (unless that row was compacted)
// before a duplicate or a met dependency is answered from it.
func (v *shareView) Lookup(opID string) (sharevat.IndexedOp, bool, error) {
	ix, ok := v.known[opID]
	if !ok {
		return sharevat.IndexedOp{}, false, nil
	}
	c := sharevat.Cursor(ix.cursor)
	found, err := indexedOf(v.s.ID, opID, c, ix.digest)
	if err != nil || ix.put {
		return found, err == nil, err
	}
	switch {
	case ix.cursor <= 0 || c > v.s.Head:
		return found, false, core.BadRecordf(v.s.ID, c, "the op-id index puts an op id at a cursor the log never had")
	case c < v.s.Earliest:
		return found, true, nil
	case found.Short || !ix.inLog:
		return found, false, core.BadRecordf(v.s.ID, c, "the op-id index points at a cursor the log does not hold")
	case ix.logOp != opID || !bytes.Equal(ix.logDigest, ix.digest):
		return found, false, core.BadRecordf(v.s.ID, c, "the op-id index and the log disagree")
	}
	return found, true, nil
}

// Put appends e at Head()+1 and indexes its op id, in memory.
func (v *shareView) Put(e *sharevat.Entry) error {
	if e.Cursor != v.s.Head+1 || e.OpID == "" {
		return fmt.Errorf("share %q: put at cursor %d with head %d", v.s.ID, e.Cursor, v.s.Head)
	}
	v.entries = append(v.entries, e)
	v.known[e.OpID] = indexed{cursor: int64(e.Cursor), digest: e.Digest[:], put: true}
	v.s.Head = e.Cursor
	return nil
}

// touch records an append at now that applied ops.
func (v *shareView) touch(now time.Time) {
	if !v.touched || now.After(v.now) {
		v.now = now
	}
	v.touched = true
}
