package apply

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"strconv"
)

// The version rule (docs/design.md §5, "Kinds and state"): which of two
// bodies of one (kind, key) the materialized state keeps. Writers of one
// share — the opencode door, the opencode plugin in each opencode
// process, any client — may deliver the versions of an item in any
// order; the state must end on the newest whatever that order. Every
// fold of the log into state (both stores' appends, the write-ahead
// log's overlay, compaction, fork, the integrity check, the contract
// suite's model) decides with Supersedes, and nothing else does.
//
// A body's stamp is the largest number among the members of its
// top-level "time" object and of its "state" object's "time" object
// (opencode's millisecond times: created, updated, completed, start,
// end); 0 when it has none. Of two bodies, the one with the larger stamp
// is newer; at equal non-zero stamps the longer one (a streamed text, a
// summary added later: a version grows), then the one whose SHA-256
// sorts last (arbitrary, but the same in every order; equal bodies: the
// later op). Bodies without a stamp
// keep plain last-write-wins: the later op is newer. The rule is a total
// order, so the state is the newest version whatever order the ops came
// in. A delete removes the entity whatever its version; an op after it
// starts the key afresh.

// Stamp is the stamp of body (see the rule above).
func Stamp(body []byte) float64 {
	var f struct {
		Time  json.RawMessage `json:"time"`
		State struct {
			Time json.RawMessage `json:"time"`
		} `json:"state"`
	}
	if len(body) == 0 || body[0] != '{' {
		return 0
	}
	if json.Unmarshal(body, &f) != nil {
		// A state or time of another shape makes the whole decode fail;
		// read the two objects alone.
		var g map[string]json.RawMessage
		if json.Unmarshal(body, &g) != nil {
			return 0
		}
		f.Time = g["time"]
		var st map[string]json.RawMessage
		if json.Unmarshal(g["state"], &st) == nil {
			f.State.Time = st["time"]
		}
	}
	return max(largest(f.Time), largest(f.State.Time))
}

// largest is the largest number among the members of a JSON object; 0
// for anything else.
func largest(raw json.RawMessage) float64 {
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

// Supersedes reports whether next, a body of a (kind, key) written after
// cur, the body its entity holds, replaces it in the state.
func Supersedes(next, cur []byte) bool {
	if won, ok := decide(Stamp(next), len(next), Stamp(cur), len(cur)); ok {
		return won
	}
	a, b := sha256.Sum256(next), sha256.Sum256(cur)
	return bytes.Compare(a[:], b[:]) >= 0
}

// Version is what the rule reads of a body, for a writer that keeps the
// versions of a share's items rather than their bodies (the opencode
// door): Version.Supersedes decides as Supersedes on the bodies.
type Version struct {
	Stamp float64
	Size  int
	Sum   [sha256.Size]byte // SHA-256 of the body
}

// VersionOf is body's Version.
func VersionOf(body []byte) Version {
	return Version{Stamp: Stamp(body), Size: len(body), Sum: sha256.Sum256(body)}
}

// Supersedes reports whether a body of version v, written after one of
// version cur, replaces it in the state.
func (v Version) Supersedes(cur Version) bool {
	if won, ok := decide(v.Stamp, v.Size, cur.Stamp, cur.Size); ok {
		return won
	}
	return bytes.Compare(v.Sum[:], cur.Sum[:]) >= 0
}

// decide is the rule up to its last step: whether the later body (stamp
// ns, size n) wins over the earlier (cs, c), and false for ok when only
// the bodies' SHA-256 can tell.
func decide(ns float64, n int, cs float64, c int) (won, ok bool) {
	switch {
	case ns != cs:
		return ns > cs, true
	case ns == 0:
		return true, true
	case n != c:
		return n > c, true
	}
	return false, false
}
