package opencode

import (
	"sync"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/store/apply"
)

// The ordering rule (docs/opencode.md, "Order"). opencode's batches may
// arrive out of order, and other writers (the opencode plugin in each
// opencode process) append to the same share. The vat's state keeps the
// newest version of each item whatever order they arrive in: that rule
// is the store's (apply.Supersedes, docs/design.md §5 "Kinds and state"),
// and the door decides by it too (apply.Version), only to spare the log
// the versions the state would not take. It keeps the version of each
// stored item, not its body.

// version is what the door remembers of the stored item of one key.
type version = apply.Version

// shareState is what the door knows of one share's stored items: the
// version of each (kind, key) and the bytes of their bodies.
type shareState struct {
	mu     sync.Mutex // held by a sync from reading to updating it
	loaded bool
	items  map[string]version
	bytes  int64
	// head is the cursor up to which items reflect the share's log: each
	// sync first reads what was appended after it (by the door itself or
	// by other writers, such as the opencode plugin).
	head uint64
	// title is the title of the newest session item stored (title.go).
	title string
}

func stateKey(kind, key string) string { return kind + "\x00" + key }

// reset empties s before a load (add, page by page).
func (s *shareState) reset() {
	s.items = map[string]version{}
	s.bytes, s.head, s.title, s.loaded = 0, 0, "", false
}

// add records a page of the share's state.
func (s *shareState) add(ents []sharevat.Entity) {
	for _, e := range ents {
		if !sharevat.IsStateKind(e.Kind) {
			continue
		}
		s.items[stateKey(e.Kind, e.Key)] = apply.VersionOf(e.Body)
		s.bytes += int64(len(e.Body))
		s.noteTitle(e.Kind, e.Body)
	}
}

// seen records an entry of the share's log read after s.head, as the
// store folds it: a tombstone removes its key, a version that supersedes
// the key's becomes it, an older one changes nothing.
func (s *shareState) seen(e sharevat.Entry) {
	if !sharevat.IsStateKind(e.Kind) {
		return
	}
	k := stateKey(e.Kind, e.Key)
	old, had := s.items[k]
	if e.Delete {
		s.bytes -= int64(old.Size)
		delete(s.items, k)
		return
	}
	v := apply.VersionOf(e.Body)
	if had && !v.Supersedes(old) {
		return
	}
	s.items[k] = v
	s.bytes += int64(v.Size) - int64(old.Size)
	s.noteTitle(e.Kind, e.Body)
}

// noteTitle records the title of a stored session item.
func (s *shareState) noteTitle(kind string, body []byte) {
	if kind == sharevat.KindSession {
		if t := sessionTitle(body); t != "" {
			s.title = t
		}
	}
}

// filter returns the ops that are newer than what s holds and than every
// other op of their key in ms, in their order, and the bytes they add.
func (s *shareState) filter(ms []mapped) ([]mapped, int64) {
	best := make(map[string]int, len(ms))
	for i := range ms {
		k := stateKey(ms[i].op.Kind, ms[i].op.Key)
		if j, ok := best[k]; ok && !ms[i].ver.Supersedes(ms[j].ver) {
			continue
		}
		best[k] = i
	}
	var out []mapped
	var added int64
	for i := range ms {
		k := stateKey(ms[i].op.Kind, ms[i].op.Key)
		if best[k] != i {
			continue
		}
		old, ok := s.items[k]
		if ok && (old.Sum == ms[i].ver.Sum || !ms[i].ver.Supersedes(old)) {
			continue
		}
		out = append(out, ms[i])
		added += int64(ms[i].ver.Size) - int64(old.Size)
	}
	return out, added
}

// applied records ms as stored.
func (s *shareState) applied(ms []mapped) {
	for i := range ms {
		k := stateKey(ms[i].op.Kind, ms[i].op.Key)
		s.bytes += int64(ms[i].ver.Size) - int64(s.items[k].Size)
		s.items[k] = ms[i].ver
		s.noteTitle(ms[i].op.Kind, ms[i].op.Body)
	}
}

// states holds the shareState of the shares syncing through this vat,
// at most max of them (an evicted one is loaded again from a snapshot).
type states struct {
	mu  sync.Mutex
	max int
	m   map[sharevat.ShareID]*shareState
}

// get returns the state of id, locked; unlock it with its mu.
func (st *states) get(id sharevat.ShareID) *shareState {
	st.mu.Lock()
	s := st.m[id]
	if s == nil {
		if len(st.m) >= st.max {
			for k, v := range st.m { // drop one that nobody holds
				if v.mu.TryLock() {
					delete(st.m, k)
					v.mu.Unlock()
					break
				}
			}
		}
		s = &shareState{}
		st.m[id] = s
	}
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

// forget drops the state of a deleted share.
func (st *states) forget(id sharevat.ShareID) {
	st.mu.Lock()
	delete(st.m, id)
	st.mu.Unlock()
}
