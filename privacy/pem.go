package privacy

import (
	"bytes"
	"regexp"
)

// A private key block is followed token by token rather than by one
// expression, so that it is found whatever separates its lines — real
// newlines, the \n escapes of JSON text held in a string, spaces when it
// was pasted onto one line — and so that a block whose END line is
// missing (a truncated paste, `head id_rsa`) is still redacted up to
// where its base64 stops.

var (
	pemBegin = regexp.MustCompile(`^-----BEGIN (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----`)
	pemEnd   = regexp.MustCompile(`^-----END (?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?-----`)
	// headerChars are the bytes of the header lines of an encrypted
	// block (Proc-Type: 4,ENCRYPTED; DEK-Info: AES-128-CBC,…).
	headerChars = chars("A-Za-z0-9:,._-")
)

// pemMinBase64 is the base64 a block must hold to be a key: a block
// with less (a header quoted in prose, "…" for the body) is not one.
const pemMinBase64 = 40

// pemHeaderWindow bounds the BEGIN and END lines.
const pemHeaderWindow = 80

// findPEM returns the bounds of the private key block whose BEGIN line
// starts at start: up to the end of its END line, or, without one, to
// the end of the last base64 token. Each byte after the BEGIN line is
// looked at once, and the walk stops at the next BEGIN line.
func findPEM(t []byte, start int) (int, int, bool) {
	h := pemBegin.FindIndex(t[start:min(len(t), start+pemHeaderWindow)])
	if h == nil {
		return 0, 0, false
	}
	last, body := start+h[1], 0
	for p := skipPEMSpace(t, last); p < len(t); p = skipPEMSpace(t, p) {
		if bytes.HasPrefix(t[p:], []byte("-----END")) {
			if f := pemEnd.FindIndex(t[p:min(len(t), p+pemHeaderWindow)]); f != nil && body >= pemMinBase64 {
				return start, p + f[1], true
			}
			break
		}
		q := pemTokenEnd(t, p)
		switch tok := t[p:q]; {
		case base64Chars.all(tok):
			body += len(tok)
		case body == 0 && len(tok) <= 64 && !bytes.HasPrefix(tok, []byte("--")) && headerChars.all(tok):
		default:
			q = -1
		}
		if q < 0 {
			break
		}
		last, p = q, q
	}
	if body < pemMinBase64 {
		return 0, 0, false
	}
	return start, last, true
}

// skipPEMSpace skips whitespace and escaped line breaks (a backslash run
// and n, r or t: the escapes of JSON text inside JSON text).
func skipPEMSpace(t []byte, p int) int {
	for p < len(t) {
		switch c := t[p]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			p++
		case c == '\\':
			q := p
			for q < len(t) && t[q] == '\\' {
				q++
			}
			if q == len(t) || (t[q] != 'n' && t[q] != 'r' && t[q] != 't') {
				return p
			}
			p = q + 1
		default:
			return p
		}
	}
	return p
}

// pemTokenEnd returns the end of the token at p: the next whitespace,
// escaped line break, or "-----" (an END line written right after the
// base64).
func pemTokenEnd(t []byte, p int) int {
	for q := p; q < len(t); q++ {
		switch c := t[q]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			return q
		case c == '-' && q > p && bytes.HasPrefix(t[q:], []byte("-----")):
			return q
		case c == '\\':
			r := q
			for r < len(t) && t[r] == '\\' {
				r++
			}
			if r < len(t) && (t[r] == 'n' || t[r] == 'r' || t[r] == 't') {
				return q
			}
			q = r - 1
		}
	}
	return len(t)
}
