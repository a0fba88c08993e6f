package privacy

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// Views. Some secrets are written so that no rule sees them as they
// stand: a token with a zero-width space inside, a .env file kept in
// base64, a form body or URL with its value percent-encoded, a token
// split into string literals joined with +. For each of these shapes a
// view of the text is built — the text with the invisible characters
// removed, with the percent escapes decoded, the base64 runs decoded, the
// literals joined — only when the text holds the shape; the rules are
// run over the view, and what they find is mapped back to the bytes of
// the text it came from, which are redacted. A view is one level deep:
// a view of a view is not built.

// view is a text made from a source text: src[2i] and src[2i+1] bound
// the source bytes that text[i] came from.
type view struct {
	text []byte
	src  []int32
}

func (v *view) reset() {
	v.text, v.src = v.text[:0], v.src[:0]
}

// add appends text b, each byte from source bytes [s, e).
func (v *view) add(b []byte, s, e int) {
	v.text = append(v.text, b...)
	for range b {
		v.src = append(v.src, int32(s), int32(e))
	}
}

// context appends t[s:e] byte for byte as context: a match may not
// start in it (its source bytes are recorded as -1-i).
func (v *view) context(t []byte, s, e int) {
	v.text = append(v.text, t[s:e]...)
	for i := s; i < e; i++ {
		v.src = append(v.src, int32(-1-i), int32(-1-i-1))
	}
}

// copyOf appends t[s:e] byte for byte.
func (v *view) copyOf(t []byte, s, e int) {
	v.text = append(v.text, t[s:e]...)
	for i := s; i < e; i++ {
		v.src = append(v.src, int32(i), int32(i+1))
	}
}

// views builds each view of t that applies and appends what the rules
// find in it to out, as spans of t, skipping those that start before
// from.
func (sc *scanner) views(t []byte, from int, out []span) []span {
	for _, edits := range editors {
		sc.edits = edits(t, sc.edits[:0])
		if len(sc.edits) > 0 {
			sc.v.reset()
			sc.v.edited(t, sc.edits)
			out = sc.findIn(from, out)
		}
	}
	sc.v.reset()
	sc.keys = sc.keys[:0]
	if base64View(&sc.v, t, &sc.keys) {
		out = sc.findIn(from, out)
	}
	for _, k := range sc.keys {
		if k.s >= from {
			out = append(out, k)
		}
	}
	return out
}

// findIn appends what the rules find in the view to out, as spans of
// its source text.
func (sc *scanner) findIn(from int, out []span) []span {
	sc.tmp = find(sc.v.text, 0, sc.tmp[:0])
	for _, sp := range sc.tmp {
		s, e := int(sc.v.src[2*sp.s]), int(sc.v.src[2*(sp.e-1)+1])
		if e < 0 {
			e = -1 - e
		}
		if s >= from {
			out = append(out, span{s, e, sp.r})
		}
	}
	return out
}

// editors find the places where a view differs from its text: invisible
// characters, percent escapes, joints of string literals. Each appends
// its edits, in order, none overlapping.
var editors = []func([]byte, []edit) []edit{invisibleEdits, percentEdits, jointEdits}

// edit replaces t[s:e] with b (has) or nothing; the view keeps the
// text t[a:b] around it (a ≤ s, e ≤ b).
type edit struct {
	s, e int
	a, b int
	c    byte
	has  bool
}

// viewWindow is the text kept each side of an edit that does not say.
const viewWindow = 256

// around returns an edit of t[s:e] keeping viewWindow bytes each side.
func around(t []byte, s, e int) edit {
	return edit{s: s, e: e, a: max(0, s-viewWindow), b: min(len(t), e+viewWindow)}
}

// edited builds the view of t made by edits: the text around them, in
// windows separated by line breaks.
func (v *view) edited(t []byte, edits []edit) {
	for k := 0; k < len(edits); {
		if len(v.text) > 0 {
			v.text = append(v.text, '\n')
			v.src = append(v.src, -1, -1)
		}
		pos, end := blankBefore(t, edits[k].a), 0
		for {
			ed := edits[k]
			v.copyOf(t, pos, ed.s)
			if ed.has {
				v.text = append(v.text, ed.c)
				v.src = append(v.src, int32(ed.s), int32(ed.e))
			}
			pos, end = ed.e, max(end, ed.b)
			k++
			if k == len(edits) || edits[k].a > end {
				break
			}
		}
		v.copyOf(t, pos, blankAfter(t, max(pos, end)))
	}
}

// blankBefore returns the position after the blank at or before i (up
// to 64 bytes back), or i.
func blankBefore(t []byte, i int) int {
	for j := i; j > 0 && j > i-64; j-- {
		if isSpace(t[j-1]) {
			return j
		}
	}
	return i
}

// blankAfter returns the position of the blank at or after i (up to 64
// bytes on), or i.
func blankAfter(t []byte, i int) int {
	for j := i; j < len(t) && j < i+64; j++ {
		if isSpace(t[j]) {
			return j
		}
	}
	return i
}

// invisible returns the length of the invisible character (zero-width
// spaces and joiners, the soft hyphen, bidirectional marks, the word
// joiner, the byte order mark) that starts t, or 0.
func invisible(t []byte) int {
	if len(t) < 2 {
		return 0
	}
	switch {
	case t[0] == 0xC2 && t[1] == 0xAD: // U+00AD soft hyphen
		return 2
	case len(t) < 3:
		return 0
	case t[0] == 0xE2 && t[1] == 0x80 && (t[2] >= 0x8B && t[2] <= 0x8F || t[2] >= 0xAA && t[2] <= 0xAE): // U+200B–U+200F, U+202A–U+202E
		return 3
	case t[0] == 0xE2 && t[1] == 0x81 && t[2] >= 0xA0 && t[2] <= 0xA4: // U+2060–U+2064
		return 3
	case t[0] == 0xEF && t[1] == 0xBB && t[2] == 0xBF, // U+FEFF
		t[0] == 0xE1 && t[1] == 0xA0 && t[2] == 0x8E: // U+180E
		return 3
	}
	return 0
}

// invisibleEdits removes the invisible characters. ASCII is skipped
// eight bytes at a time.
func invisibleEdits(t []byte, out []edit) []edit {
	for i := 0; i < len(t); {
		if i+8 <= len(t) && binary.LittleEndian.Uint64(t[i:])&0x8080808080808080 == 0 {
			i += 8
			continue
		}
		c := t[i]
		if c != 0xC2 && c != 0xE2 && c != 0xEF && c != 0xE1 {
			i++
			continue
		}
		if n := invisible(t[i:]); n > 0 {
			out = append(out, around(t, i, i+n))
			i += n
			continue
		}
		i++
	}
	return out
}

// percentEdits decodes the percent escapes (%XX, upper-case hex) of a
// text holding one of a URL's reserved characters or a blank so
// escaped: a value sent in a URL or a form body.
func percentEdits(t []byte, out []edit) []edit {
	if !hasReservedEscape(t) {
		return out
	}
	for i := 0; ; i++ {
		k := bytes.IndexByte(t[i:], '%')
		if k < 0 || i+k+2 >= len(t) {
			return out
		}
		i += k
		if b, ok := hexPair(t[i+1], t[i+2]); ok {
			ed := around(t, i, i+3)
			ed.c, ed.has = b, true
			out = append(out, ed)
			i += 2
		}
	}
}

// reservedEscapes are the characters whose escape marks a
// percent-encoded value.
var reservedEscapes = chars(" \t\n\r!\"#$&'()*+,/:;<=>?@[]_{}~")

func hasReservedEscape(t []byte) bool {
	for i := 0; ; i++ {
		k := bytes.IndexByte(t[i:], '%')
		if k < 0 || i+k+2 >= len(t) {
			return false
		}
		i += k
		if b, ok := hexPair(t[i+1], t[i+2]); ok && reservedEscapes.has(b) {
			return true
		}
	}
}

// hexPair decodes two upper-case hex digits.
func hexPair(a, b byte) (byte, bool) {
	h, ok1 := upperHex(a)
	l, ok2 := upperHex(b)
	return h<<4 | l, ok1 && ok2
}

func upperHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// jointEdits removes the joints of string literals written one after
// the other ("ghp_abc" + "def…", 'a' 'b', with escaped quotes too).
func jointEdits(t []byte, out []edit) []edit {
	n := len(out)
	out = quoteJoints(t, '"', out)
	out = quoteJoints(t, '\'', out)
	if len(out)-n < 2 {
		return out
	}
	slices.SortFunc(out[n:], func(a, b edit) int { return a.s - b.s })
	w := n + 1
	for _, ed := range out[n+1:] {
		if ed.s >= out[w-1].e {
			out[w] = ed
			w++
		}
	}
	return out[:w]
}

// quoteJoints appends the joints of literals quoted with q.
func quoteJoints(t []byte, q byte, out []edit) []edit {
	for i := 0; ; i++ {
		k := bytes.IndexByte(t[i:], q)
		if k < 0 {
			return out
		}
		i += k
		e := joint(t, i)
		if e < 0 {
			continue
		}
		s := i
		for s > 0 && t[s-1] == '\\' {
			s--
		}
		// The view keeps the two literals (to their other quotes) and
		// a name before the first.
		a := max(0, s-viewWindow)
		if k := bytes.LastIndexByte(t[a:s], q); k >= 0 {
			a = max(0, a+k-64)
		}
		b := min(len(t), e+viewWindow)
		if k := bytes.IndexByte(t[e:b], q); k >= 0 {
			b = e + k + 1
		}
		out = append(out, edit{s: s, e: e, a: a, b: b})
		i = e - 1
	}
}

// joint returns the end of the joint whose closing quote is t[i]: blanks,
// a '+' or nothing, blanks, and the same quote (escaped as the first
// was), or -1. The bytes on each side of the joint are letters, digits
// or - and _.
func joint(t []byte, i int) int {
	q, esc := t[i], 0
	for esc < i && t[i-1-esc] == '\\' {
		esc++
	}
	if esc == i || !wordDash.has(t[i-1-esc]) {
		return -1
	}
	j := i + 1
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	plus := j < len(t) && t[j] == '+'
	if plus {
		j++
		for j < len(t) && (t[j] == ' ' || t[j] == '\t' || t[j] == '\n') {
			j++
		}
	}
	if !plus && j == i+1 {
		return -1
	}
	for k := 0; k < esc; k++ {
		if j >= len(t) || t[j] != '\\' {
			return -1
		}
		j++
	}
	if j+1 >= len(t) || t[j] != q || !wordDash.has(t[j+1]) {
		return -1
	}
	return j + 1
}
