package privacy

import (
	"bytes"
	"unicode/utf8"
)

// The base64 view (views.go): text kept in base64 — a .env file in a
// Kubernetes Secret, a config blob in a JSON field — is decoded and
// scanned; and a private key's base64 body written without its BEGIN
// line is found by how its DER encoding starts (findKeyBody).

// minBase64Run is the shortest base64 run decoded: 24 bytes.
const minBase64Run = 32

// b64class sorts bytes for base64 runs: 1 for letters and digits, 2 for
// the standard alphabet's + and /, 3 for the URL alphabet's - and _.
var b64class = func() (c [256]byte) {
	for _, b := range []byte("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") {
		c[b] = 1
	}
	c['+'], c['/'], c['-'], c['_'] = 2, 2, 3, 3
	return c
}()

// base64View holds, for each run of 32 or more base64 characters (of
// one alphabet, padding aside) that decodes to text, the line before the
// run (context: a name the value is assigned to) and the decoded text.
// A secret found in the decoded text is mapped to the whole run. A run
// that is the body of a private key written without its BEGIN line
// (findKeyBody) is appended to keys instead.
func base64View(v *view, t []byte, keys *[]span) bool {
	found := false
	for i := 0; i+minBase64Run <= len(t); {
		// i follows a byte that is not base64. A run as long as
		// minBase64Run from i holds t[k]; if that byte is not base64, no
		// run starts before it; if the run holding t[k] starts after i,
		// look again from its start.
		k := i + minBase64Run - 1
		if b64class[t[k]] == 0 {
			i = k + 1
			continue
		}
		s := k
		for s > i && b64class[t[s-1]] != 0 {
			s--
		}
		if s > i {
			i = s
			continue
		}
		j := k + 1
		for j < len(t) && b64class[t[j]] != 0 {
			j++
		}
		if base64Run(v, t, i, j, keys) {
			found = true
		}
		i = j + 1
	}
	return found
}

// base64Run handles the run t[i:j] of base64 characters: a private key
// body is appended to keys, a run of one alphabet that decodes to text
// to v. It reports whether it added to v.
func base64Run(v *view, t []byte, i, j int, keys *[]span) bool {
	if i > 0 && escapes(t, i-1) {
		i++ // the letter of an escape (\n) before the run
	}
	if j-i < minBase64Run {
		return false
	}
	if s, e, ok := findKeyBody(t, i); ok {
		*keys = append(*keys, span{s, e, privateKeyRule})
		return false
	}
	kinds := byte(0)
	for _, c := range t[i:j] {
		kinds |= 1 << b64class[c]
	}
	if kinds&(1<<2|1<<3) == 1<<2|1<<3 {
		return false
	}
	e := j
	for e < len(t) && t[e] == '=' && e-j < 2 {
		e++
	}
	return decodeText(v, t, i, e, t[i:j], kinds&(1<<3) != 0)
}

// decodeText appends to v the line before t[s:e] and the text run
// decodes to, if it is text: printable ASCII, blanks and UTF-8. The run
// holds characters of one alphabet only.
func decodeText(v *view, t []byte, s, e int, run []byte, url bool) bool {
	if !isText(run, url) {
		return false
	}
	n0, d0 := len(v.text), len(v.src)
	ctx := max(0, s-64)
	if nl := bytes.LastIndexByte(t[ctx:s], '\n'); nl >= 0 {
		ctx += nl + 1
	}
	v.context(t, ctx, s)
	start := len(v.text)
	for k := 0; k+2 <= len(run); k += 4 {
		out, n := b64quantum(run[k:min(k+4, len(run))], url)
		v.add(out[:n], s, e)
	}
	if !utf8.Valid(v.text[start:]) {
		v.text, v.src = v.text[:n0], v.src[:d0]
		return false
	}
	v.add([]byte{'\n'}, s, e)
	return true
}

// isText reports whether run decodes to printable ASCII, blanks and
// bytes of UTF-8 sequences, stopping at the first other byte.
func isText(run []byte, url bool) bool {
	for k := 0; k+2 <= len(run); k += 4 {
		out, n := b64quantum(run[k:min(k+4, len(run))], url)
		for _, c := range out[:n] {
			if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7F {
				return false
			}
		}
	}
	return true
}

// b64value is c's value in the alphabet, or 0xFF.
func b64value(c byte, url bool) byte {
	switch {
	case c >= 'A' && c <= 'Z':
		return c - 'A'
	case c >= 'a' && c <= 'z':
		return c - 'a' + 26
	case c >= '0' && c <= '9':
		return c - '0' + 52
	case c == '+' && !url, c == '-' && url:
		return 62
	case c == '/' && !url, c == '_' && url:
		return 63
	}
	return 0xFF
}

// b64quantum decodes two to four base64 characters into one to three
// bytes.
func b64quantum(q []byte, url bool) ([3]byte, int) {
	var x uint32
	for i := 0; i < 4; i++ {
		x <<= 6
		if i < len(q) {
			x |= uint32(b64value(q[i], url))
		}
	}
	return [3]byte{byte(x >> 16), byte(x >> 8), byte(x)}, len(q) - 1
}
