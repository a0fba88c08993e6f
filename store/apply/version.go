package apply

import (
	"bytes"
	"crypto/sha256"
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

// Stamp is the stamp of body (see the rule above). It reads the body's
// top level without decoding it (every state upsert weighs two bodies,
// inside the store's serial section): member names match exactly, and a
// body that is not a JSON object has no stamp.
func Stamp(body []byte) float64 {
	best := 0.0
	members(body, func(name, val []byte) {
		switch string(name) {
		case "time":
			best = max(best, largest(val))
		case "state":
			members(val, func(name, val []byte) {
				if string(name) == "time" {
					best = max(best, largest(val))
				}
			})
		}
	})
	return best
}

// largest is the largest number among the members of a JSON object; 0
// for anything else.
func largest(obj []byte) float64 {
	best := 0.0
	members(obj, func(_, val []byte) {
		if len(val) > 0 && (val[0] == '-' || val[0] >= '0' && val[0] <= '9') {
			if f, err := strconv.ParseFloat(string(val), 64); err == nil && f > best {
				best = f
			}
		}
	})
	return best
}

// members calls fn with the raw name (between its quotes, not unescaped)
// and raw value of each member of the JSON object obj, in order, and
// stops at the first byte that does not fit (nothing for a non-object).
func members(obj []byte, fn func(name, val []byte)) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	for i = skipSpace(obj, i+1); i < len(obj) && obj[i] == '"'; {
		end := skipString(obj, i)
		name := obj[i+1 : max(i+1, end-1)]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		start := skipSpace(obj, i+1)
		end = skipValue(obj, start)
		if end <= start {
			return
		}
		fn(name, obj[start:end])
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i = skipSpace(obj, i+1)
	}
}

// skipSpace is the index of the first non-space byte of b at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString is the index just past the string that starts at b[i] ('"'):
// the next quote not escaped (preceded by an even run of backslashes).
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1
		}
	}
	return len(b)
}

// skipValue is the index just past the value that starts at b[i]: a
// string, an object or array (brackets counted outside strings), or a
// number or literal (up to the next delimiter).
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(b)
	}
	for i < len(b) && !isDelimiter(b[i]) {
		i++
	}
	return i
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

// isDelimiter reports whether c ends a number or literal.
func isDelimiter(c byte) bool {
	switch c {
	case ',', '}', ']', ' ', '\t', '\n', '\r':
		return true
	}
	return false
}
