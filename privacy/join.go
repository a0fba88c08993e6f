package privacy

import (
	"bytes"
	"slices"
)

// Secrets split across strings. A token may be cut in two JSON strings
// (two array elements, two members' values: a tool's output in chunks),
// and an access key's secret may be given unnamed in the string after
// its key id. The walker scans the end of each value string joined to
// the start of the next one, and keeps what it finds there that reaches
// into the second: the part in each string is redacted on its own, so
// the body stays valid JSON.

// joinLimit is the decoded bytes of each string a join looks at: a
// token split in two is found when it lies within joinLimit bytes of
// the boundary on each side.
const joinLimit = 256

// joinRaw is the raw bytes of a string with escapes a join decodes:
// joinLimit decoded bytes, unless escapes are dense there (then the
// join looks at fewer).
const joinRaw = 2 * joinLimit

// join scans the end of prev's text joined to the start of cur's, and
// records the secrets that cross into cur (or, with a separator between
// them, that a rule's pair finds in cur after prev's match).
func (w *walker) join(prev, cur str) {
	poff := max(prev.start, prev.end-rawLimit(prev))
	praw := w.body[poff:prev.end]
	craw := w.body[cur.start:min(cur.end, cur.start+rawLimit(cur))]
	if w.jbuf == nil {
		w.jbuf = make([]byte, 0, 4*joinLimit)
	}
	w.jbuf = w.joinText(w.jbuf[:0], praw, prev.esc)
	k := max(0, len(w.jbuf)-joinLimit)
	n := copy(w.jbuf, w.jbuf[k:])
	w.jbuf = w.joinText(w.jbuf[:n], craw, cur.esc)
	whole := len(w.jbuf) - n
	t := w.jbuf[:min(len(w.jbuf), n+joinLimit)]
	w.jspans = find(t, 0, w.jspans[:0])
	w.crossing(prev, cur, t, poff, k, n, whole, false)
	if w.pairOpen {
		t = append(append(append([]byte(nil), w.jbuf[:n]...), '\n'), t[n:]...)
		w.jspans = find(t, 0, w.jspans[:0])
		w.crossing(prev, cur, t, poff, k, n+1, whole, true)
	}
}

// rawLimit is the raw bytes of s a join decodes.
func rawLimit(s str) int {
	if s.esc {
		return joinRaw
	}
	return joinLimit
}

// joinText appends the text of raw (decoded when esc) to dst.
func (w *walker) joinText(dst, raw []byte, esc bool) []byte {
	if !esc {
		return append(dst, raw...)
	}
	return decode(raw, dst)
}

// crossing records the spans of w.jspans, found in t (prev's tail, which
// starts k decoded bytes into what was decoded of prev from raw offset
// poff, then cur's head
// from n on), that reach into cur: the part before n on prev, the rest
// on cur. A span that a cut head ends is left out: it may be longer.
// With paired, only the spans of a rule's pair are kept; without, none
// when prev ends with a whole token (a specific rule's match: what
// follows is not its rest), nor a private key block's when prev left
// one open (continuesPEM takes its lines).
func (w *walker) crossing(prev, cur str, t []byte, poff, k, n, whole int, paired bool) {
	for _, sp := range w.jspans {
		if sp.e <= n || sp.e == len(t) && len(t)-n < whole || paired && !pairRules[sp.r] ||
			!paired && (w.prevWhole || w.pemOpen && sp.r == privateKeyRule) {
			continue
		}
		if sp.s < n {
			w.joinMatch(prev, sp.r, poff, k+sp.s, -1)
		}
		w.joinMatch(cur, sp.r, cur.start, max(0, sp.s-n), sp.e-n)
		w.joined = true
	}
}

// joinMatch adds the match of r over s's decoded bytes [ds, de) (de -1:
// to its end), counted from raw offset off of the body.
func (w *walker) joinMatch(s str, r *rule, off, ds, de int) {
	raw := w.body[off:s.end]
	if !s.esc {
		if de < 0 {
			de = len(raw)
		}
		w.matches = append(w.matches, Match{Rule: r.ID, Start: off + ds, End: off + de})
		return
	}
	if de < 0 {
		de = 1 << 62
	}
	pos := []int{ds, de}
	rawPositions(raw, pos)
	w.matches = append(w.matches, Match{Rule: r.ID, Start: off + pos[0], End: off + pos[1]})
}

// mergeMatches sorts matches by start and merges overlapping ones, as
// merge does spans: after a join, a string's matches may overlap.
func mergeMatches(ms []Match) []Match {
	slices.SortStableFunc(ms, func(a, b Match) int { return a.Start - b.Start })
	out := ms[:0]
	for _, m := range ms {
		if n := len(out); n > 0 && m.Start < out[n-1].End {
			cur := &out[n-1]
			if betterID(m, *cur) {
				cur.Rule = m.Rule
			}
			cur.End = max(cur.End, m.End)
			continue
		}
		out = append(out, m)
	}
	return out
}

// betterID is better for matches: a specific rule before a generic one,
// then the longer match.
func betterID(a, b Match) bool {
	if ga, gb := genericIDs[a.Rule], genericIDs[b.Rule]; ga != gb {
		return !ga
	}
	return a.End-a.Start > b.End-b.Start
}

// genericIDs are the ids of the generic rules.
var genericIDs = func() map[string]bool {
	m := make(map[string]bool)
	for _, r := range rules {
		m[r.ID] = r.generic
	}
	return m
}()

// pairRules are the rules' pairs.
var pairRules = func() map[*rule]bool {
	m := make(map[*rule]bool)
	for _, r := range rules {
		if r.pair != nil {
			m[r.pair] = true
		}
	}
	return m
}()

// joinPrev joins the value string before s, if any, to s.
func (w *walker) joinPrev(s str) {
	if w.hasPrev {
		w.join(w.prev, s)
	}
}

// scanned notes s as the value string scanned last, whether its last
// secret is of a rule with a pair (spans are its secrets), and whether
// it ends with a specific rule's match.
func (w *walker) scanned(s str, spans []span) {
	w.prev, w.hasPrev = s, true
	w.pairOpen = len(spans) > 0 && spans[len(spans)-1].r.pair != nil
	n := len(w.matches)
	w.prevWhole = n > 0 && w.matches[n-1].End == s.end && !genericIDs[w.matches[n-1].Rule]
}

// pemRest returns the bounds of the private key block's rest text starts
// with, after blanks: its lines while they are all base64, then its END
// line if that comes next (an END line alone is not redacted). open is false when text holds more than that
// (the block ended, or something else follows it).
func pemRest(text []byte) (a, b int, open bool) {
	a, end := trimBlank(text)
	b = a
	for p := a; p < end; {
		q := p + bytes.IndexByte(text[p:end], '\n')
		if q < p {
			q = end
		}
		ls, le := trimBlank(text[p:q])
		line := text[p+ls : p+le]
		switch {
		case len(line) > 0 && base64Chars.all(line):
			b = p + le
		case b > a && bytes.HasPrefix(line, []byte("-----END ")) && bytes.HasSuffix(line, []byte("-----")):
			return a, p + le, false
		case len(line) > 0:
			return a, b, false
		}
		p = q + 1
	}
	return a, b, true
}
