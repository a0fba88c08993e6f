package privacy

import (
	"bytes"
	"encoding/base64"
	"math"
)

// The last checks some rules run on a match (rule.ok), to keep the
// generic rules off ordinary code and prose.

// placeholders are words a real secret does not hold but a documented
// example, a template or a test value often does.
var placeholders = [][]byte{
	[]byte("example"), []byte("placeholder"), []byte("your"), []byte("xxxx"), []byte("changeme"),
	[]byte("dummy"), []byte("sample"), []byte("redacted"), []byte("replace"), []byte("insert"),
	[]byte("password"), []byte("secret"), []byte("token"), []byte("apikey"), []byte("api_key"),
}

// isPlaceholder reports whether v reads as a placeholder rather than a
// secret: it holds a placeholder word (any case), or is one byte
// repeated.
func isPlaceholder(v []byte) bool {
	for _, w := range placeholders {
		if containsFold(v, w) {
			return true
		}
	}
	return len(v) > 0 && len(bytes.Trim(v, string(v[:1]))) == 0
}

// containsFold reports whether v holds w (lower case) in any ASCII case.
func containsFold(v, w []byte) bool {
	for i := 0; i+len(w) <= len(v); i++ {
		j := 0
		for j < len(w) && lower(v[i+j]) == w[j] {
			j++
		}
		if j == len(w) {
			return true
		}
	}
	return false
}

func group(win []byte, m []int, g int) []byte { return win[m[2*g]:m[2*g+1]] }

// notPlaceholder passes a match whose group g is not a placeholder.
func notPlaceholder(g int) func([]byte, []int) bool {
	return func(win []byte, m []int) bool { return !isPlaceholder(group(win, m, g)) }
}

// hasLetterAndDigit passes a match whose group g holds both.
func hasLetterAndDigit(g int) func([]byte, []int) bool {
	return func(win []byte, m []int) bool { return letterAndDigit(group(win, m, g)) }
}

func letterAndDigit(v []byte) bool {
	var letter, digit bool
	for _, c := range v {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}

// mixedCase passes a match holding upper and lower case letters.
func mixedCase(win []byte, m []int) bool {
	v := group(win, m, 0)
	return bytes.ContainsFunc(v, func(r rune) bool { return r >= 'A' && r <= 'Z' }) &&
		bytes.ContainsFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' })
}

// entropy is the Shannon entropy of v's bytes, in bits per byte.
func entropy(v []byte) float64 {
	var counts [256]int32
	for _, c := range v {
		counts[c]++
	}
	h := 0.0
	for _, n := range counts {
		if n > 0 {
			p := float64(n) / float64(len(v))
			h -= p * math.Log2(p)
		}
	}
	return h
}

// minEntropy is the entropy a generic secret must have: a random string
// of 16 letters and digits has about 3.7 bits per byte; words, counters
// and identifiers have less.
const minEntropy = 3.0

// randomLooking reports whether v could be a generated secret: letters
// and digits, high entropy, no placeholder word.
func randomLooking(v []byte) bool {
	return letterAndDigit(v) && entropy(v) >= minEntropy && !isPlaceholder(v)
}

// highEntropy passes a match whose group g looks random.
func highEntropy(g int) func([]byte, []int) bool {
	return func(win []byte, m []int) bool { return randomLooking(group(win, m, g)) }
}

// genericValue passes a value assigned to a secret-sounding name when it
// looks random and is not a path.
func genericValue(win []byte, m []int) bool {
	v := group(win, m, 1)
	if v[0] == '/' && bytes.Count(v, []byte("/")) > 1 {
		return false
	}
	return randomLooking(v)
}

// urlPassword passes the password of scheme://user:password@host unless
// it is a placeholder, a template ($VAR, {{…}}, %s, <…>), masked (***)
// or the user name again.
func urlPassword(win []byte, m []int) bool {
	user, pw := group(win, m, 1), group(win, m, 2)
	switch {
	case bytes.IndexByte([]byte("${%<*["), pw[0]) >= 0:
		return false
	case bytes.Equal(user, pw) || isPlaceholder(pw):
		return false
	}
	return !bytes.Contains([]byte(" pass pwd pw root admin postgres mysql user guest test "), append(append([]byte(" "), bytes.ToLower(pw)...), ' '))
}

// basicCredentials passes Basic <base64> when the base64 decodes to
// printable user:password.
func basicCredentials(win []byte, m []int) bool {
	v := group(win, m, 1)
	enc := base64.StdEncoding
	if len(v)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	dec, err := enc.DecodeString(string(v))
	if err != nil {
		return false
	}
	colon := bytes.IndexByte(dec, ':')
	if colon < 1 || colon == len(dec)-1 {
		return false
	}
	for _, c := range dec {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// jwtHeader passes a JWT whose header decodes to a JSON object naming
// its algorithm.
func jwtHeader(win []byte, m []int) bool {
	v := group(win, m, 0)
	head := v[:bytes.IndexByte(v, '.')]
	dec, err := base64.RawURLEncoding.DecodeString(string(bytes.TrimRight(head, "=")))
	if err != nil {
		return false
	}
	return bytes.HasPrefix(dec, []byte("{")) && bytes.Contains(dec, []byte(`"alg"`))
}
