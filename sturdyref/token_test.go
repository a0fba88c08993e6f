package sturdyref_test

import (
	"bytes"
	"encoding/base32"
	"errors"
	"strings"
	"testing"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"
)

// A valid token to mutate, split into its parts.
const (
	validTok = "svt1_dhkahye3t74k6pk2qfpj3plz_fFvq8c5CAqi6exCYA8_rmaGYiSh65OwqqMjfg5KMTnk"
	validID  = "dhkahye3t74k6pk2qfpj3plz"
	validSec = "fFvq8c5CAqi6exCYA8_rmaGYiSh65OwqqMjfg5KMTnk"
)

func TestConstants(t *testing.T) {
	if got, want := sturdyref.TokenLen, 73; got != want {
		t.Errorf("TokenLen = %d, want %d", got, want)
	}
	if got := sturdyref.Prefix + validID + "_" + validSec; got != validTok || len(got) != sturdyref.TokenLen {
		t.Errorf("test token parts do not add up: %q", got)
	}
}

func TestParseValid(t *testing.T) {
	tok, err := sturdyref.Parse(validTok)
	if err != nil {
		t.Fatalf("Parse(valid) = %v, want nil", err)
	}
	if tok.GrantID != validID || tok.Reveal() != validTok {
		t.Errorf("Parse(valid) = %s / %q, want id %s and the same text back", tok.GrantID, tok.Reveal(), validID)
	}
}

// setByte returns s with the byte at i replaced by the string r.
func setByte(s string, i int, r string) string { return s[:i] + r + s[i+1:] }

// nonCanonicalLast returns validSec with its last character's unused low
// bits set: it decodes to the same bytes under a lenient decoder.
func nonCanonicalLast() string {
	const alpha = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alpha, validSec[len(validSec)-1])
	return validSec[:len(validSec)-1] + string(alpha[last|1])
}

var malformed = []struct {
	name, in string
}{
	{"empty", ""},
	{"prefix only", "svt1_"},
	{"upper-case prefix", "SVT1_" + validID + "_" + validSec},
	{"other version", "svt2_" + validID + "_" + validSec},
	{"no prefix", validID + "_" + validSec},
	{"short id", "svt1_" + validID[:23] + "_" + validSec},
	{"long id", "svt1_" + validID + "a_" + validSec},
	{"short id, long secret, same length", "svt1_" + validID[:23] + "_" + validSec + "A"},
	{"id upper case", "svt1_" + strings.ToUpper(validID) + "_" + validSec},
	{"id one upper-case letter", "svt1_" + setByte(validID, 0, "D") + "_" + validSec},
	{"id with underscore", "svt1_" + setByte(validID, 3, "_") + "_" + validSec},
	{"id with 0", "svt1_" + setByte(validID, 5, "0") + "_" + validSec},
	{"id with 1", "svt1_" + setByte(validID, 5, "1") + "_" + validSec},
	{"id with 8", "svt1_" + setByte(validID, 5, "8") + "_" + validSec},
	{"id with padding", "svt1_" + setByte(validID, 23, "=") + "_" + validSec},
	{"missing separator", "svt1_" + validID + validSec},
	{"dash separator", "svt1_" + validID + "-" + validSec},
	{"secret too short", "svt1_" + validID + "_" + validSec[:42]},
	{"secret too long", "svt1_" + validID + "_" + validSec + "A"},
	{"secret padded", validTok + "="},
	{"secret padding in place of last char", setByte(validTok, 72, "=")},
	{"secret non-canonical last char", "svt1_" + validID + "_" + nonCanonicalLast()},
	{"secret std alphabet +", setByte(validTok, 40, "+")},
	{"secret std alphabet /", setByte(validTok, 40, "/")},
	{"secret with dot", setByte(validTok, 40, ".")},
	{"space before", " " + validTok},
	{"space after", validTok + " "},
	{"newline after", validTok + "\n"},
	{"newline before", "\n" + validTok},
	{"crlf after", validTok + "\r\n"},
	{"tab before", "\t" + validTok},
	{"newline inside secret", validTok[:50] + "\n" + validTok[50:]},
	{"newline replacing a secret char", setByte(validTok, 50, "\n")},
	{"carriage return replacing an id char", setByte(validTok, 10, "\r")},
	{"NUL after", validTok + "\x00"},
	{"NUL replacing a char", setByte(validTok, 40, "\x00")},
	{"all NUL", strings.Repeat("\x00", sturdyref.TokenLen)},
	{"cyrillic s in prefix", "\u0455vt1_" + validID + "_" + validSec},
	{"cyrillic a in id, same length", "svt1_\u0430" + validID[2:] + "_" + validSec},
	{"fullwidth underscore", "svt1_" + validID[:22] + "\uff3f" + validSec},
	{"invalid UTF-8", setByte(validTok, 40, "\xff")},
	{"two tokens", validTok + validTok},
	{"zero token text", sturdyref.Token{}.Reveal()},
	{"1 MiB", strings.Repeat("a", 1<<20)},
	{"token then 1 MiB", validTok + strings.Repeat("A", 1<<20)},
}

func TestParseMalformed(t *testing.T) {
	for _, tc := range malformed {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := sturdyref.Parse(tc.in)
			if !errors.Is(err, sturdyref.ErrMalformed) || sharevat.ErrorCode(err) != sharevat.EInvalid {
				t.Fatalf("Parse = %v, %v; want ErrMalformed (code %s)", tok, err, sharevat.EInvalid)
			}
			if tok != (sturdyref.Token{}) {
				t.Errorf("Parse returned a non-zero token with its error")
			}
			if tc.in != "" && strings.Contains(err.Error(), tc.in) {
				t.Errorf("error %q quotes its input", err)
			}
			if strings.Contains(err.Error(), validSec[:8]) {
				t.Errorf("error %q quotes part of the secret", err)
			}
		})
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{validID, true},
		{strings.Repeat("a", 24), true},
		{strings.Repeat("7", 24), true},
		{"", false},
		{validID[:23], false},
		{validID + "a", false},
		{setByte(validID, 0, "A"), false},
		{setByte(validID, 0, "_"), false},
		{setByte(validID, 0, "0"), false},
		{setByte(validID, 0, "1"), false},
		{setByte(validID, 0, "8"), false},
		{setByte(validID, 0, "9"), false},
		{setByte(validID, 0, "="), false},
		{setByte(validID, 0, "\n"), false},
		{"\u0430" + validID[2:], false},
	}
	for _, tc := range tests {
		if got := sturdyref.ValidID(tc.id); got != tc.want {
			t.Errorf("ValidID(%q) = %v, want %v", tc.id, got, tc.want)
		}
	}
}

// idEncoding is an independent copy of the documented id encoding.
var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

func TestNewID(t *testing.T) {
	raw := []byte("fifteen bytes!!")
	id, err := sturdyref.NewID(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("NewID: %v", err)
	}
	if want := idEncoding.EncodeToString(raw); id != want || !sturdyref.ValidID(id) {
		t.Errorf("NewID = %q (valid %v), want %q", id, sturdyref.ValidID(id), want)
	}
	back, err := idEncoding.DecodeString(id)
	if err != nil || !bytes.Equal(back, raw) {
		t.Errorf("id %q decodes to %x, %v; want %x", id, back, err, raw)
	}
}

func TestNewShortRandom(t *testing.T) {
	for _, n := range []int{0, 14, 15, 46} {
		if _, err := sturdyref.New(bytes.NewReader(make([]byte, n))); err == nil {
			t.Errorf("New with %d random bytes succeeded, want an error", n)
		}
	}
	if _, err := sturdyref.NewID(bytes.NewReader(make([]byte, 14))); err == nil {
		t.Error("NewID with 14 random bytes succeeded, want an error")
	}
}

func TestNewRoundTrip(t *testing.T) {
	for range 100 {
		tok := mustRandomToken(t)
		back, err := sturdyref.Parse(tok.Reveal())
		if err != nil || back != tok {
			t.Fatalf("Parse(New().Reveal()) = %v, %v; want the same token", back, err)
		}
		if !sturdyref.ValidID(string(tok.GrantID)) {
			t.Fatalf("New made invalid grant id %q", tok.GrantID)
		}
	}
}
