package opencode

import (
	"fmt"
	"testing"

	"github.com/sharevat/sharevat"
)

// fill gives the state of share id k keys (each about 130 bytes of
// mem), as syncs through the door do, and hands it back.
func fill(st *states, id sharevat.ShareID, k int) *shareState {
	s := st.get(id)
	if s.items == nil && !s.uncached {
		s.reset()
	}
	var ents []sharevat.Entity
	for i := range k {
		ents = append(ents, sharevat.Entity{Kind: sharevat.KindPart, Key: fmt.Sprintf("msg_1/prt_%06d", i), Body: []byte(`{"id":"x"}`)})
	}
	if !s.uncached {
		s.add(ents)
	}
	st.done(s)
	return s
}

// TestStatesStayUnderStateBytes: what the door keeps of the shares
// syncing through it is bounded by StateBytes (it grew with every share
// and every item: 278 MB retained after a 1M-op fill). Invariant, under
// a 1 MiB bound: 40 shares of 1,000 keys (about 5 MiB in all) leave at
// most 1 MiB kept, the most recently synced share kept whole and the
// first ones let go; a share of 20,000 keys (over the bound alone) keeps
// none (uncached) and the others stay under the bound; forgetting a
// share gives its bytes back.
func TestStatesStayUnderStateBytes(t *testing.T) {
	st := newStates(1 << 20)
	for i := range 40 {
		fill(&st, sharevat.ShareID(fmt.Sprintf("s%02d", i)), 1000)
		if st.total > st.maxBytes {
			t.Fatalf("after share %d the door keeps %d bytes, over its bound of %d", i, st.total, st.maxBytes)
		}
	}
	if s := st.m["s39"]; s == nil || len(s.items) != 1000 {
		t.Fatalf("the last share synced was let go")
	}
	if st.m["s00"] != nil {
		t.Fatalf("the first share synced is still kept")
	}
	big := fill(&st, "big", 20000)
	if !big.uncached || big.items != nil || big.mem != 0 {
		t.Fatalf("a share over the bound alone keeps %d keys (%d bytes)", len(big.items), big.mem)
	}
	if st.total > st.maxBytes {
		t.Fatalf("the door keeps %d bytes, over its bound of %d", st.total, st.maxBytes)
	}
	before, held := st.total, st.m["s39"].counted
	st.forget("s39")
	if held == 0 || st.total != before-held {
		t.Fatalf("forgetting a share of %d bytes: %d kept, then %d", held, before, st.total)
	}
}
