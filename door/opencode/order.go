package opencode

import (
	"container/list"
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
	// mem is about the bytes items takes (entryBytes per key); over
	// states.maxBytes the door keeps no items for the share (uncached).
	mem int64
	// uncached: the share's state did not fit states.maxBytes; its syncs
	// go to the vat unfiltered (sync.go), which keeps the newest version
	// of each key by the same rule and ignores an item sent again.
	uncached bool
	// counted is mem as states last counted it; elem is s's place in
	// the states' LRU list.
	counted int64
	elem    *list.Element
}

// entryBytes is about what one key of items takes besides its text: the
// version (48 bytes), the string header and the map's own overhead.
const entryBytes = 112

// put sets the version of key k, counting a new key in mem.
func (s *shareState) put(k string, v version) {
	if _, had := s.items[k]; !had {
		s.mem += int64(len(k)) + entryBytes
	}
	s.items[k] = v
}

// del removes key k.
func (s *shareState) del(k string) {
	if _, had := s.items[k]; had {
		s.mem -= int64(len(k)) + entryBytes
		delete(s.items, k)
	}
}

func stateKey(kind, key string) string { return kind + "\x00" + key }

// reset empties s before a load (add, page by page).
func (s *shareState) reset() {
	s.items = map[string]version{}
	s.bytes, s.head, s.title, s.mem, s.loaded, s.uncached = 0, 0, "", 0, false, false
}

// drop makes s uncached: its items are let go.
func (s *shareState) drop() {
	s.reset()
	s.items, s.uncached = nil, true
}

// add records a page of the share's state.
func (s *shareState) add(ents []sharevat.Entity) {
	for _, e := range ents {
		if !sharevat.IsStateKind(e.Kind) {
			continue
		}
		s.put(stateKey(e.Kind, e.Key), apply.VersionOf(e.Body))
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
		s.del(k)
		return
	}
	v := apply.VersionOf(e.Body)
	if had && !v.Supersedes(old) {
		return
	}
	s.put(k, v)
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

// applied records ms as stored (an uncached s, only the title).
func (s *shareState) applied(ms []mapped) {
	for i := range ms {
		if s.uncached {
			s.noteTitle(ms[i].op.Kind, ms[i].op.Body)
			continue
		}
		k := stateKey(ms[i].op.Kind, ms[i].op.Key)
		s.bytes += int64(ms[i].ver.Size) - int64(s.items[k].Size)
		s.put(k, ms[i].ver)
		s.noteTitle(ms[i].op.Kind, ms[i].op.Body)
	}
}
