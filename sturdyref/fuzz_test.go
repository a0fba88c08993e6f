package sturdyref_test

import (
	"strings"
	"testing"

	"github.com/sharevat/sharevat/sturdyref"
)

// FuzzParse: Parse never panics, and whatever it accepts it gives back
// byte for byte and parses again to the same token.
func FuzzParse(f *testing.F) {
	for _, tok := range goldenTokens(f) {
		f.Add(tok)
	}
	for _, tc := range malformed {
		if len(tc.in) <= 1024 {
			f.Add(tc.in)
		}
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := sturdyref.Parse(s)
		if err != nil {
			if err != sturdyref.ErrMalformed {
				t.Fatalf("Parse error %v is not ErrMalformed", err)
			}
			return
		}
		if got := tok.Reveal(); got != s {
			t.Fatalf("Reveal() = %q, want the input %q", got, s)
		}
		again, err := sturdyref.Parse(tok.Reveal())
		if err != nil || again != tok {
			t.Fatalf("Parse(Reveal()) = %v, %v; want the same token", again, err)
		}
		if !strings.HasPrefix(tok.String(), sturdyref.Prefix+string(tok.GrantID)+"_") || strings.Contains(tok.String(), s[30:]) {
			t.Fatalf("String() = %q is not the redacted form", tok.String())
		}
	})
}
