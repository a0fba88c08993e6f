package capnweb

import "strconv"

// maxQuoted is the longest peer text an error or a log line repeats.
// It is shorter than any secret a server of this engine hands out (a
// sharevat token is 73 bytes, its secret 43): a pasted token, or its
// secret alone, is never repeated, not even in part.
const maxQuoted = 32

// SafeName returns s when it may be repeated in an error or a log line:
// a name of at most 32 bytes of ASCII letters, digits, '_', '$' and '.'
// (a method, a property path, a message or expression type). Anything
// else, which could be a secret the peer pasted in the wrong place,
// becomes "<N bytes not shown>" and no part of it is repeated.
func SafeName(s string) string {
	if len(s) <= maxQuoted && nameShaped(s) {
		return s
	}
	return "<" + strconv.Itoa(len(s)) + " bytes not shown>"
}

func nameShaped(s string) bool {
	for i := range len(s) {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '$' || c == '.'
		if !ok {
			return false
		}
	}
	return true
}

// quoteName is SafeName in double quotes when it is shown, for errors
// that quote a peer's name.
func quoteName(s string) string {
	q := SafeName(s)
	if q == s {
		return strconv.Quote(s)
	}
	return q
}
