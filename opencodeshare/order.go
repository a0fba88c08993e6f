package opencodeshare

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"sync"

	"sharevat"
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

// timed is the part of an item's data the stamp is read from.
type timed struct {
	Time  map[string]json.RawMessage `json:"time"`
	State struct {
		Time map[string]json.RawMessage `json:"time"`
	} `json:"state"`
}

// stamp is the largest time.* or state.time.* number of body; 0 when
// it has none (or is not an object).
func stamp(body []byte) float64 {
	var t timed
	if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &t) != nil {
		return 0
	}
	best := 0.0
	for _, m := range []map[string]json.RawMessage{t.Time, t.State.Time} {
		for _, raw := range m {
			if f, err := strconv.ParseFloat(string(raw), 64); err == nil && f > best {
				best = f
			}
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
}

func stateKey(kind, key string) string { return kind + "\x00" + key }

// load fills s from a snapshot of the share.
func (s *shareState) load(ents []sharevat.Entity) {
	s.items = make(map[string]version, len(ents))
	s.bytes = 0
	for _, e := range ents {
		s.items[stateKey(e.Kind, e.Key)] = versionOf(e.Body)
		s.bytes += int64(len(e.Body))
	}
	s.loaded = true
}

// filter returns the ops that are newer than what s holds and than every
// other op of their key in ops, in their order, and the bytes they add.
func (s *shareState) filter(ops []sharevat.Op) ([]sharevat.Op, int64) {
	best := make(map[string]int, len(ops))
	vers := make([]version, len(ops))
	for i := range ops {
		vers[i] = versionOf(ops[i].Body)
		k := stateKey(ops[i].Kind, ops[i].Key)
		if j, ok := best[k]; ok && !vers[i].newer(vers[j]) {
			continue
		}
		best[k] = i
	}
	var out []sharevat.Op
	var added int64
	for i := range ops {
		k := stateKey(ops[i].Kind, ops[i].Key)
		if best[k] != i {
			continue
		}
		old, ok := s.items[k]
		if ok && (old.digest == vers[i].digest || !vers[i].newer(old)) {
			continue
		}
		out = append(out, ops[i])
		added += int64(len(ops[i].Body)) - int64(old.size)
	}
	return out, added
}

// applied records ops as stored.
func (s *shareState) applied(ops []sharevat.Op) {
	for i := range ops {
		k := stateKey(ops[i].Kind, ops[i].Key)
		v := versionOf(ops[i].Body)
		s.bytes += int64(v.size) - int64(s.items[k].size)
		s.items[k] = v
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
