package opencode

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/sharevat/sharevat"
)

// The ordering rule (docs/opencode.md, "Order"). opencode's batches may
// arrive out of order, and the vat's state keeps the last op of a key, so
// the door appends an item only when it is newer than the one its key
// holds. An item's stamp is the largest number among its data's
// time.* and state.time.* fields (opencode's milliseconds: created,
// updated, completed, start, end). The newer of two versions is the one
// with the larger stamp; at equal stamps the longer body (a streamed text
// only grows); at equal lengths the larger SHA-256 of the body (arbitrary
// but the same in every order). Items with no time at all (session_diff,
// model) carry no order: the last one received wins.

// version is what the door remembers of the stored item of one key.
type version struct {
	stamp  float64
	size   int
	digest [sha256.Size]byte
}

func versionOf(body []byte) version {
	return version{stamp: stamp(body), size: len(body), digest: sha256.Sum256(body)}
}

// newer reports whether v should replace old (see the rule above).
func (v version) newer(old version) bool {
	switch {
	case v.stamp == 0 && old.stamp == 0:
		return true
	case v.stamp != old.stamp:
		return v.stamp > old.stamp
	case v.size != old.size:
		return v.size > old.size
	}
	return bytes.Compare(v.digest[:], old.digest[:]) > 0
}

// stamp is the largest time.* or state.time.* number of body; 0 when
// it has none (or is not an object).
func stamp(body []byte) float64 {
	var f fields
	if len(body) == 0 || body[0] != '{' {
		return 0
	}
	readFields(body, &f)
	return max(stampOf(f.Time), stampOf(f.State.Time))
}

// stampOf is the largest number among the fields of a JSON object; 0
// for anything else.
func stampOf(raw json.RawMessage) float64 {
	var m map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return 0
	}
	best := 0.0
	for _, v := range m {
		if f, err := strconv.ParseFloat(string(v), 64); err == nil && f > best {
			best = f
		}
	}
	return best
}

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
}

func stateKey(kind, key string) string { return kind + "\x00" + key }

// load fills s from a snapshot of the share at cursor head.
func (s *shareState) load(ents []sharevat.Entity, head uint64) {
	s.items = make(map[string]version, len(ents))
	s.bytes = 0
	for _, e := range ents {
		s.items[stateKey(e.Kind, e.Key)] = versionOf(e.Body)
		s.bytes += int64(len(e.Body))
	}
	s.head = head
	s.loaded = true
}

// seen records an entry of the share's log read after s.head: the share
// now holds it for its key (a tombstone: nothing).
func (s *shareState) seen(e sharevat.Entry) {
	if !sharevat.IsStateKind(e.Kind) {
		return
	}
	k := stateKey(e.Kind, e.Key)
	s.bytes -= int64(s.items[k].size)
	if e.Delete {
		delete(s.items, k)
		return
	}
	v := versionOf(e.Body)
	s.items[k] = v
	s.bytes += int64(v.size)
}

// filter returns the ops that are newer than what s holds and than every
// other op of their key in ms, in their order, and the bytes they add.
func (s *shareState) filter(ms []mapped) ([]mapped, int64) {
	best := make(map[string]int, len(ms))
	for i := range ms {
		k := stateKey(ms[i].op.Kind, ms[i].op.Key)
		if j, ok := best[k]; ok && !ms[i].ver.newer(ms[j].ver) {
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
		if ok && (old.digest == ms[i].ver.digest || !ms[i].ver.newer(old)) {
			continue
		}
		out = append(out, ms[i])
		added += int64(ms[i].ver.size) - int64(old.size)
	}
	return out, added
}

// applied records ms as stored.
func (s *shareState) applied(ms []mapped) {
	for i := range ms {
		k := stateKey(ms[i].op.Kind, ms[i].op.Key)
		s.bytes += int64(ms[i].ver.size) - int64(s.items[k].size)
		s.items[k] = ms[i].ver
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
