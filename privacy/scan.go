package privacy

import (
	"slices"
)

// Match is one secret found in a body.
type Match struct {
	Rule       string // the rule's id
	Start, End int    // the secret's bytes in the scanned body: body[Start:End]
}

// kwRef is one keyword of one rule in the keyword index.
type kwRef struct {
	kw string // lower case when fold
	r  *rule
}

// index holds the rules' keywords by their first two bytes.
var index = buildIndex(rules)

// nameIndex is index restricted to the rules that need a name before
// the value (rule.assign): a JSON object key holding one of these is
// scanned together with its value.
var nameIndex = buildIndex(slices.DeleteFunc(slices.Clone(rules), func(r *rule) bool { return !r.assign }))

// kwIndex finds the keywords that may start at a position from the
// position's first two bytes, lower-cased: slot maps them to an entry
// of refs (0: no keyword starts so).
type kwIndex struct {
	first [256]bool // some keyword starts with this byte
	slot  [1 << 16]uint16
	refs  [][]kwRef
}

func buildIndex(rs []*rule) *kwIndex {
	x := &kwIndex{refs: make([][]kwRef, 1)}
	for _, r := range rs {
		for _, k := range r.keywords {
			x.first[k[0]], x.first[upperByte(k[0])] = true, true
			key := pairKey(k[0], k[1])
			if x.slot[key] == 0 {
				x.slot[key] = uint16(len(x.refs))
				x.refs = append(x.refs, nil)
			}
			x.refs[x.slot[key]] = append(x.refs[x.slot[key]], kwRef{k, r})
		}
	}
	return x
}

func pairKey(a, b byte) uint16 { return uint16(lowerTab[a])<<8 | uint16(lowerTab[b]) }

// at returns the keywords that may start at t[i:]; i+1 < len(t).
func (x *kwIndex) at(t []byte, i int) []kwRef {
	if !x.first[t[i]] {
		return nil
	}
	if s := x.slot[pairKey(t[i], t[i+1])]; s != 0 {
		return x.refs[s]
	}
	return nil
}

// lowerTab maps each byte to its ASCII lower case.
var lowerTab = func() (t [256]byte) {
	for i := range t {
		t[i] = byte(i)
		if i >= 'A' && i <= 'Z' {
			t[i] = byte(i) + 'a' - 'A'
		}
	}
	return t
}()

func lower(c byte) byte { return lowerTab[c] }

func upperByte(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// at reports whether k's keyword occurs at t[i:].
func (k *kwRef) at(t []byte, i int) bool {
	if len(t)-i < len(k.kw) {
		return false
	}
	if !k.r.fold {
		return string(t[i:i+len(k.kw)]) == k.kw
	}
	for j := 0; j < len(k.kw); j++ {
		if lower(t[i+j]) != k.kw[j] {
			return false
		}
	}
	return true
}

// span is a secret found in one text, by rule.
type span struct {
	s, e int
	r    *rule
}

// find appends to out the secrets in t, in order of their start, with
// overlapping ones merged, skipping those that start before from.
func find(t []byte, from int, out []span) []span {
	n := len(out)
	x := index
	for i := 0; i+1 < len(t); i++ {
		if !x.first[t[i]] {
			continue
		}
		slot := x.slot[uint16(lowerTab[t[i]])<<8|uint16(lowerTab[t[i+1]])]
		if slot == 0 {
			continue
		}
		refs := x.refs[slot]
		for k := range refs {
			ref := &refs[k]
			if !ref.at(t, i) {
				continue
			}
			s, e, ok := ref.r.match(t, i)
			if !ok && ref.r.alt != nil {
				s, e, ok = ref.r.alt.match(t, i)
			}
			if ok && s >= from {
				out = append(out, span{s, e, ref.r})
				out = findPair(t, i, from, ref.r, out)
			}
		}
	}
	return merge(out, n)
}

// findPair appends to out the secret r's pair finds at the keyword at
// i, where r matched.
func findPair(t []byte, i, from int, r *rule, out []span) []span {
	if r.pair == nil {
		return out
	}
	if s, e, ok := r.pair.match(t, i); ok && s >= from {
		out = append(out, span{s, e, r.pair})
	}
	return out
}

// scanner holds the buffers of a scan.
type scanner struct {
	v     view
	tmp   []span
	keys  []span
	edits []edit
}

// findAll is find over t and over each of its views (views.go).
func (sc *scanner) findAll(t []byte, from int, out []span) []span {
	n := len(out)
	out = find(t, from, out)
	out = sc.views(t, from, out)
	return merge(out, n)
}

// hasName reports whether t holds a keyword of a rule that needs a name
// before its value.
func hasName(t []byte) bool {
	for i := 0; i+1 < len(t); i++ {
		refs := nameIndex.at(t, i)
		for k := range refs {
			if refs[k].at(t, i) {
				return true
			}
		}
	}
	return false
}

// merge sorts out[n:] by start and merges overlapping spans into their
// union, named after the best rule among them: a specific rule before a
// generic one, then the longer match.
func merge(out []span, n int) []span {
	found := out[n:]
	if len(found) < 2 {
		return out
	}
	slices.SortStableFunc(found, func(a, b span) int { return a.s - b.s })
	w := 0
	for _, sp := range found[1:] {
		cur := &found[w]
		if sp.s >= cur.e {
			w++
			found[w] = sp
			continue
		}
		if better(sp, *cur) {
			cur.r = sp.r
		}
		cur.e = max(cur.e, sp.e)
	}
	return out[:n+w+1]
}

// better reports whether a names a merged span rather than b.
func better(a, b span) bool {
	if a.r.generic != b.r.generic {
		return !a.r.generic
	}
	return a.e-a.s > b.e-b.s
}
