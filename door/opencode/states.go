package opencode

import (
	"container/list"
	"sync"

	"github.com/sharevat/sharevat"
)

// DefaultStateBytes is the default Options.StateBytes: what the door
// keeps at most of the versions of the shares syncing through it, about
// 200,000 keys.
const DefaultStateBytes = 32 << 20

// maxStates bounds the number of shares whose state the door keeps.
const maxStates = 4096

// states holds the shareState of the shares syncing through this vat:
// at most maxStates of them and maxBytes of their items (shareState.mem),
// the least recently synced let go first (an evicted one is loaded again
// from the share's state at its next sync). A share whose state alone is
// over maxBytes is kept uncached (no items), and synced unfiltered.
type states struct {
	mu       sync.Mutex
	maxBytes int64
	total    int64 // the sum of the counted mem of m
	m        map[sharevat.ShareID]*shareState
	lru      *list.List // of sharevat.ShareID, most recent first
}

func newStates(maxBytes int64) states {
	return states{maxBytes: maxBytes, m: map[sharevat.ShareID]*shareState{}, lru: list.New()}
}

// get returns the state of id, locked; give it back with done.
func (st *states) get(id sharevat.ShareID) *shareState {
	st.mu.Lock()
	s := st.m[id]
	if s == nil {
		if len(st.m) >= maxStates {
			st.evictLocked(nil, func() bool { return len(st.m) >= maxStates })
		}
		s = &shareState{}
		s.elem = st.lru.PushFront(id)
		st.m[id] = s
	}
	st.lru.MoveToFront(s.elem)
	st.mu.Unlock()
	s.mu.Lock()
	st.mu.Lock()
	current := st.m[id] == s
	st.mu.Unlock()
	if !current { // evicted while we waited: take the one in the map
		s.mu.Unlock()
		return st.get(id)
	}
	return s
}

// done counts what s holds now, lets go of the least recently synced
// states while the door holds more than maxBytes, and unlocks s.
func (st *states) done(s *shareState) {
	if s.mem > st.maxBytes { // grown over the bound by syncs
		s.drop()
	}
	st.mu.Lock()
	if s.elem != nil { // else forgotten: not counted any more
		st.total += s.mem - s.counted
		s.counted = s.mem
	}
	st.evictLocked(s, func() bool { return st.total > st.maxBytes })
	st.mu.Unlock()
	s.mu.Unlock()
}

// evictLocked drops the least recently synced states nobody holds (and
// not keep) while over() says so.
func (st *states) evictLocked(keep *shareState, over func() bool) {
	for e := st.lru.Back(); e != nil && over(); {
		prev := e.Prev()
		id := e.Value.(sharevat.ShareID)
		if s := st.m[id]; s != keep && s.mu.TryLock() {
			st.removeLocked(id, s)
			s.mu.Unlock()
		}
		e = prev
	}
}

func (st *states) removeLocked(id sharevat.ShareID, s *shareState) {
	delete(st.m, id)
	st.lru.Remove(s.elem)
	st.total -= s.counted
	s.counted, s.elem = 0, nil
}

// forget drops the state of a deleted share.
func (st *states) forget(id sharevat.ShareID) {
	st.mu.Lock()
	if s := st.m[id]; s != nil {
		st.removeLocked(id, s)
	}
	st.mu.Unlock()
}
