package sturdyref_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"testing"

	"golang.org/x/crypto/blake2b"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/sturdyref"
)

func TestNewVerifierPepperLength(t *testing.T) {
	for _, n := range []int{0, 16, 31, 65, 128} {
		_, err := sturdyref.NewVerifier(make([]byte, n))
		if got := sharevat.ErrorCode(err); got != sharevat.EInvalid {
			t.Errorf("NewVerifier(%d-byte pepper) code = %q, want %q", n, got, sharevat.EInvalid)
		}
	}
	for _, n := range []int{32, 48, 64} {
		if _, err := sturdyref.NewVerifier(make([]byte, n)); err != nil {
			t.Errorf("NewVerifier(%d-byte pepper) = %v, want nil", n, err)
		}
	}
}

func TestNewPepper(t *testing.T) {
	p, err := sturdyref.NewPepper(rand.Reader)
	if err != nil || len(p) != sturdyref.MinPepperLen {
		t.Fatalf("NewPepper = %d bytes, %v; want %d bytes", len(p), err, sturdyref.MinPepperLen)
	}
	if _, err := sturdyref.NewPepper(bytes.NewReader(make([]byte, 31))); err == nil {
		t.Error("NewPepper from 31 bytes succeeded, want an error")
	}
}

// TestVerifierConstruction recomputes Sum by hand from the documented
// construction, over the golden tokens.
func TestVerifierConstruction(t *testing.T) {
	pepper := goldenPepper()
	v := mustVerifier(t, pepper)
	for _, text := range goldenTokens(t) {
		tok, err := sturdyref.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := blake2b.New256(pepper)
		h.Write([]byte("sharevat token v1\x00" + text[5:29] + "\x00"))
		h.Write(mustSecretBytes(t, text))
		if got, want := v.Sum(tok), h.Sum(nil); !bytes.Equal(got, want) {
			t.Errorf("Sum(%s) = %x, want %x", tok, got, want)
		}
	}
}

// mustSecretBytes decodes the secret of a token's text.
func mustSecretBytes(tb testing.TB, text string) []byte {
	tb.Helper()
	for _, g := range readGolden(tb).Tokens {
		if g.Token == text {
			return mustHex(tb, g.SecretHex)
		}
	}
	tb.Fatalf("token %.34s… is not golden", text)
	return nil
}

func TestVerify(t *testing.T) {
	v := mustRandomVerifier(t)
	tok := mustRandomToken(t)
	stored := v.Sum(tok)
	if len(stored) != 32 {
		t.Fatalf("Sum is %d bytes, want 32", len(stored))
	}
	if !v.Verify(tok, stored) {
		t.Fatal("Verify(own verifier) = false, want true")
	}
	other := mustRandomToken(t)
	tests := []struct {
		name   string
		v      *sturdyref.Verifier
		tok    sturdyref.Token
		stored []byte
	}{
		{"wrong secret", v, sturdyref.Token{GrantID: tok.GrantID}, stored},
		{"other token's secret", v, withID(t, other, tok.GrantID), stored},
		{"wrong grant id, same secret", v, withID(t, tok, other.GrantID), stored},
		{"different pepper", mustRandomVerifier(t), tok, stored},
		{"truncated verifier", v, tok, stored[:31]},
		{"extended verifier", v, tok, append(bytes.Clone(stored), 0)},
		{"empty verifier", v, tok, nil},
		{"flipped bit", v, tok, flip(stored)},
	}
	for _, tc := range tests {
		if tc.v.Verify(tc.tok, tc.stored) {
			t.Errorf("%s: Verify = true, want false", tc.name)
		}
	}
}

// withID returns tok with its grant id replaced, keeping its secret.
func withID(tb testing.TB, tok sturdyref.Token, id sharevat.GrantID) sturdyref.Token {
	tb.Helper()
	text := sturdyref.Prefix + string(id) + tok.Reveal()[29:]
	out, err := sturdyref.Parse(text)
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

func flip(b []byte) []byte {
	c := bytes.Clone(b)
	c[len(c)-1] ^= 1
	return c
}

func TestVerifierCopiesPepper(t *testing.T) {
	pepper := goldenPepper()
	v := mustVerifier(t, pepper)
	tok := mustRandomToken(t)
	before := v.Sum(tok)
	pepper[0] ^= 0xff
	if !v.Verify(tok, before) {
		t.Error("changing the caller's pepper slice changed the Verifier")
	}
}

func TestNewErrorsAreNotDomainErrors(t *testing.T) {
	_, err := sturdyref.New(bytes.NewReader(nil))
	var de *sharevat.Error
	if errors.As(err, &de) || sharevat.ErrorCode(err) != sharevat.EInternal {
		t.Errorf("New on a failed reader: code %q, want %q", sharevat.ErrorCode(err), sharevat.EInternal)
	}
}
