package sturdyref_test

import (
	"testing"

	"github.com/sharevat/sharevat/sturdyref"
)

func BenchmarkParse(b *testing.B) {
	text := mustRandomToken(b).Reveal()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sturdyref.Parse(text); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkVerify measures redeeming a token's text: parse, then check
// the stored verifier.
func BenchmarkVerify(b *testing.B) {
	v := mustRandomVerifier(b)
	tok := mustRandomToken(b)
	text, stored := tok.Reveal(), v.Sum(tok)
	b.ReportAllocs()
	for b.Loop() {
		t, err := sturdyref.Parse(text)
		if err != nil || !v.Verify(t, stored) {
			b.Fatal("verify failed")
		}
	}
}

func BenchmarkNew(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		mustRandomToken(b)
	}
}
