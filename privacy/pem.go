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
	end, body := pemBody(t, start+h[1], true)
	if body < pemMinBase64 {
		return 0, 0, false
	}
	return start, end, true
}

// findKeyBody finds the base64 body of a private key written without its
// BEGIN line (a key's lines kept apart from their header, a DER key in
// base64): it starts as the DER encoding of a private key does — a
// SEQUENCE holding the version INTEGER 0 or 1 (PKCS#1, PKCS#8, SEC1,
// PKCS#12) — or as an OpenSSH key ("openssh-key-v1"), and goes on as
// findPEM's body does.
func findKeyBody(t []byte, start int) (int, int, bool) {
	if start > 0 && base64Chars.has(before(t, start)) || !derKeyPrefix(t[start:]) {
		return 0, 0, false
	}
	end, body := pemBody(t, start, false)
	if body < pemMinBase64 {
		return 0, 0, false
	}
	return start, end, true
}

// derKeyPrefix reports whether b starts with the base64 of a private
// key's DER encoding: 30 82 LL LL 02 01 00 (MII..[AQgw]IBA), 30 81 LL 02
// 01 0v (MI[E-H].AgE[AB]), 30 LL 02 01 0v (M[A-H].CAQ[A-H]), or an
// OpenSSH key.
func derKeyPrefix(b []byte) bool {
	if len(b) < 9 || b[0] != 'M' {
		return bytes.HasPrefix(b, []byte("b3BlbnNzaC1rZXktdjE"))
	}
	switch {
	case b[1] == 'I' && b[2] == 'I':
		return base64Chars.has(b[3]) && base64Chars.has(b[4]) && bytes.IndexByte([]byte("AQgw"), b[5]) >= 0 && string(b[6:9]) == "IBA"
	case b[1] == 'I' && b[2] >= 'E' && b[2] <= 'H':
		return base64Chars.has(b[3]) && string(b[4:7]) == "AgE" && (b[7] == 'A' || b[7] == 'B')
	}
	return b[1] >= 'A' && b[1] <= 'H' && base64Chars.has(b[2]) && string(b[3:6]) == "CAQ" && b[6] >= 'A' && b[6] <= 'H'
}

// pemBody follows a block's body from p: base64 tokens (and, when
// header is set, the header lines of an encrypted block before them) to
// the block's END line. It returns the end of the END line, or without
// one the end of the last token, and the base64 characters it holds.
func pemBody(t []byte, p int, header bool) (int, int) {
	last, body := p, 0
	for p = skipPEMSpace(t, p); p < len(t); p = skipPEMSpace(t, p) {
		if bytes.HasPrefix(t[p:], []byte("-----END")) {
			if f := pemEnd.FindIndex(t[p:min(len(t), p+pemHeaderWindow)]); f != nil && body >= pemMinBase64 {
				return p + f[1], body
			}
			break
		}
		q := pemTokenEnd(t, p)
		switch tok := t[p:q]; {
		case base64Chars.all(tok):
			body += len(tok)
		case header && body == 0 && len(tok) <= 64 && !bytes.HasPrefix(tok, []byte("--")) && headerChars.all(tok):
		default:
			if k := base64Prefix(tok); k > 0 {
				return p + k, body + k // a quote or a bracket right after the base64
			}
			return last, body
		}
		last, p = q, q
	}
	return last, body
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

// base64Prefix returns how many of tok's first bytes are base64.
func base64Prefix(tok []byte) int {
	k := 0
	for k < len(tok) && base64Chars.has(tok[k]) {
		k++
	}
	return k
}
