package sturdyref_test

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"testing"

	"github.com/sharevat/sharevat/sturdyref"
)

// mustNew mints a token from r or fails the test.
func mustNew(tb testing.TB, r io.Reader) sturdyref.Token {
	tb.Helper()
	tok, err := sturdyref.New(r)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return tok
}

// mustRandomToken mints a token from crypto/rand.
func mustRandomToken(tb testing.TB) sturdyref.Token {
	tb.Helper()
	return mustNew(tb, rand.Reader)
}

// mustVerifier returns a Verifier for pepper or fails the test.
func mustVerifier(tb testing.TB, pepper []byte) *sturdyref.Verifier {
	tb.Helper()
	v, err := sturdyref.NewVerifier(pepper)
	if err != nil {
		tb.Fatalf("NewVerifier: %v", err)
	}
	return v
}

// mustRandomVerifier returns a Verifier with a fresh random pepper.
func mustRandomVerifier(tb testing.TB) *sturdyref.Verifier {
	tb.Helper()
	p, err := sturdyref.NewPepper(rand.Reader)
	if err != nil {
		tb.Fatalf("NewPepper: %v", err)
	}
	return mustVerifier(tb, p)
}

func mustHex(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		tb.Fatalf("hex %q: %v", s, err)
	}
	return b
}

// secretText is the secret part of a token's text.
func secretText(tok sturdyref.Token) string {
	return tok.Reveal()[len(sturdyref.Prefix)+sturdyref.IDLen+1:]
}
