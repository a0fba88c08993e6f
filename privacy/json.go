package privacy

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// Scan returns the secrets in a JSON body, in order, none overlapping.
// It scans the decoded text of every JSON string (see the package
// comment). A body that is not valid JSON is scanned as far as its
// strings can be told apart; use ScanText for text that is not JSON.
func Scan(body []byte) []Match {
	var w walker
	w.walk(body)
	return w.matches
}

// Redact returns body with each secret Scan finds replaced by
// [REDACTED:<rule id>], and how many it replaced. A valid JSON body
// stays valid JSON. With nothing found it returns body itself.
func Redact(body []byte) ([]byte, int) {
	return replace(body, Scan(body))
}

// ScanText returns the secrets in plain text, in order, none
// overlapping.
func ScanText(text []byte) []Match {
	var sc scanner
	spans := sc.findAll(text, 0, nil)
	out := make([]Match, len(spans))
	for i, sp := range spans {
		out[i] = Match{Rule: sp.r.ID, Start: sp.s, End: sp.e}
	}
	return out
}

// RedactText is Redact for plain text.
func RedactText(text []byte) ([]byte, int) {
	return replace(text, ScanText(text))
}

// replace returns b with each match replaced by [REDACTED:<rule>].
func replace(b []byte, ms []Match) ([]byte, int) {
	if len(ms) == 0 {
		return b, 0
	}
	out := make([]byte, 0, len(b)+len(ms)*24)
	prev := 0
	for _, m := range ms {
		out = append(out, b[prev:m.Start]...)
		out = append(out, "[REDACTED:"...)
		out = append(out, m.Rule...)
		out = append(out, ']')
		prev = m.End
	}
	return append(out, b[prev:]...), len(ms)
}

// stringAt returns the string whose content starts at i: up to the next
// unescaped quote, or the end of b. Each byte is looked at a bounded
// number of times: quote is the next quote not yet known to be escaped.
func stringAt(b []byte, i int) str {
	s := str{start: i}
	quote := -1
	for {
		if quote < i {
			q := bytes.IndexByte(b[i:], '"')
			if q < 0 {
				s.end = len(b)
				s.esc = s.esc || bytes.IndexByte(b[i:], '\\') >= 0
				return s
			}
			quote = i + q
		}
		e := bytes.IndexByte(b[i:quote], '\\')
		if e < 0 {
			s.end = quote
			return s
		}
		s.esc = true
		i += e + 2 // past the backslash and the byte it escapes
	}
}

// decode appends the text of a JSON string's content to dst. An invalid
// escape is kept as it is.
func decode(raw, dst []byte) []byte {
	for len(raw) > 0 {
		e := bytes.IndexByte(raw, '\\')
		if e < 0 || e+1 == len(raw) {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:e]...)
		r, n := unescape(raw[e:])
		if n == 0 {
			dst = append(dst, '\\')
			raw = raw[e+1:]
			continue
		}
		dst = utf8.AppendRune(dst, r)
		raw = raw[e+n:]
	}
	return dst
}

// unescape decodes the escape sequence at the start of e: its rune and
// length, or length 0 if it is not a valid one.
func unescape(e []byte) (rune, int) {
	switch e[1] {
	case '"', '\\', '/':
		return rune(e[1]), 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case 'n':
		return '\n', 2
	case 'r':
		return '\r', 2
	case 't':
		return '\t', 2
	case 'u':
		r, ok := hex4(e[2:])
		if !ok {
			return 0, 0
		}
		if utf16.IsSurrogate(r) && len(e) >= 12 && e[6] == '\\' && e[7] == 'u' {
			if r2, ok := hex4(e[8:]); ok {
				if p := utf16.DecodeRune(r, r2); p != utf8.RuneError {
					return p, 12
				}
			}
		}
		if utf16.IsSurrogate(r) {
			return utf8.RuneError, 6
		}
		return r, 6
	}
	return 0, 0
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// rawPositions turns positions in the decoded text of raw (ascending;
// even indexes are starts, odd ones ends) into positions in raw, in
// one walk. A start inside the bytes one escape decodes to moves to the
// escape's start, an end to its end, so a match covers whole escapes.
func rawPositions(raw []byte, pos []int) {
	k, d := 0, 0 // next position to map; decoded offset of raw[i]
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(raw) && k < len(pos); {
		n, w := 1, 1 // raw bytes of this unit, decoded bytes it yields
		if raw[i] == '\\' && i+1 < len(raw) {
			if r, m := unescape(raw[i:]); m > 0 {
				n, w = m, utf8.EncodeRune(buf[:], r)
			}
		}
		for k < len(pos) && pos[k] < d+w {
			if k%2 == 1 && pos[k] > d {
				pos[k] = i + n // an end inside this unit
			} else {
				pos[k] = i
			}
			k++
		}
		i, d = i+n, d+w
	}
	for ; k < len(pos); k++ {
		pos[k] = len(raw)
	}
}
