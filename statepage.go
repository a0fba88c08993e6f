package sharevat

import "math"

// StateOrder is the order in which StatePage walks a share's
// materialized state. Its values cross the wire: never reorder them.
type StateOrder uint8

// The state orders.
const (
	// ByKey walks the state in (kind, key) order, the order of Snapshot.
	ByKey StateOrder = iota
	// ByChange walks the state newest change first: by the cursor of the
	// op that holds each entity's version, descending. An entity that
	// changes while a walk is under way moves above the walk's start and
	// is not met again: a reader that wants it follows the log from the
	// first page's head (Reader.subscribe or read) — the share page does.
	ByChange
)

// The default page bounds: a request's MaxCount or MaxBytes of zero
// means these. Stores apply what they are given; what a peer may ask for
// the vat caps (the wire allows at most these).
const (
	MaxPageCount = 1000
	MaxPageBytes = 8 << 20
)

// StatePageRequest asks for one page of a share's state.
type StatePageRequest struct {
	Order StateOrder
	// After is where the previous page ended (its Next); the zero value
	// starts at the beginning of Order.
	After StateCursor
	// MaxCount and MaxBytes bound the page (EntitySize counts bytes); 0
	// means MaxPageCount or MaxPageBytes, and a negative MaxCount no count
	// bound (ByKey only: ByChange holds the keys of MaxCount candidates).
	// A page holds at least one entity when any is left, whatever its size.
	MaxCount int
	MaxBytes int
}

// StateCursor is a position in a walk of the state. ByKey continues
// after (Kind, Key); ByChange continues with the entities whose cursor is
// below Cursor (0: from the newest).
type StateCursor struct {
	Kind   string
	Key    string
	Cursor Cursor
}

// StatePage is one page of a share's state.
type StatePage struct {
	Entities []Entity
	Next     StateCursor // pass as After for the next page
	Done     bool        // no entity is left after this page
	Head     Cursor      // the share's head this page reflects
}

// EntitySize is what one entity counts against a page's MaxBytes (and
// the snapshot's answer limit): its kind, key and body, plus 48.
func EntitySize(e *Entity) int {
	return len(e.Kind) + len(e.Key) + len(e.Body) + 48
}

// Bounds returns the request's MaxCount and MaxBytes with the defaults
// applied.
func (r StatePageRequest) Bounds() (count, bytes int) {
	count, bytes = r.MaxCount, r.MaxBytes
	switch {
	case count == 0:
		count = MaxPageCount
	case count < 0:
		count = math.MaxInt32
	}
	if bytes <= 0 {
		bytes = MaxPageBytes
	}
	return count, bytes
}

// Fits reports whether an entity of size bytes joins a page that holds n
// entities of used bytes so far: the first always does.
func (r StatePageRequest) Fits(n, used, size int) bool {
	count, bytes := r.Bounds()
	return n == 0 || n < count && used+size <= bytes
}
