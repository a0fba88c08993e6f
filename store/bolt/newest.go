package bolt

import (
	"cmp"
	"container/heap"
	"slices"

	"github.com/sharevat/sharevat"
)

// candidate is one state key and the cursor of its entity.
type candidate struct {
	cursor sharevat.Cursor
	key    []byte
}

// newestN keeps the n candidates with the largest cursors offered to it:
// a min-heap, so the smallest kept is the one to drop.
type newestN struct {
	n int
	h candHeap
}

// offer considers (cursor, key); key is copied only if kept.
func (t *newestN) offer(cursor sharevat.Cursor, key []byte) {
	if len(t.h) < t.n {
		heap.Push(&t.h, candidate{cursor, slices.Clone(key)})
		return
	}
	if t.n > 0 && cursor > t.h[0].cursor {
		t.h[0] = candidate{cursor, slices.Clone(key)}
		heap.Fix(&t.h, 0)
	}
}

// sorted returns the kept candidates, largest cursor first.
func (t *newestN) sorted() []candidate {
	out := slices.Clone(t.h)
	slices.SortFunc(out, func(a, b candidate) int { return cmp.Compare(b.cursor, a.cursor) })
	return out
}

type candHeap []candidate

func (h candHeap) Len() int           { return len(h) }
func (h candHeap) Less(i, j int) bool { return h[i].cursor < h[j].cursor }
func (h candHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *candHeap) Push(x any)        { *h = append(*h, x.(candidate)) }
func (h *candHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
