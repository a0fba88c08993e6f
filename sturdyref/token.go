package sturdyref

import (
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"io"

	"github.com/sharevat/sharevat"
)

// The token format; see the package comment for the layout.
const (
	// Prefix starts every token; it names the format and lets secret
	// scanners find leaked tokens.
	Prefix = "svt1_"
	// IDLen is the length of a grant (or share) id: 15 random bytes in
	// lowercase base32 without padding.
	IDLen = 24
	// SecretLen is the number of secret bytes in a token.
	SecretLen = 32
	// TokenLen is the exact length of a token's text.
	TokenLen = len(Prefix) + IDLen + 1 + secretTextLen
)

const (
	idBytes       = 15 // 15 × 8 bits = 24 × 5 bits: no partial character
	secretTextLen = 43 // base64 of 32 bytes without padding
	sepAt         = len(Prefix) + IDLen
	idAlphabet    = "abcdefghijklmnopqrstuvwxyz234567"
)

var (
	idEncoding     = base32.NewEncoding(idAlphabet).WithPadding(base32.NoPadding)
	secretEncoding = base64.RawURLEncoding.Strict()
)

// ErrMalformed is the one error Parse returns. It never quotes its input.
var ErrMalformed = sharevat.Errorf(sharevat.EInvalid, "malformed token")

// Token is a sturdy reference: a public grant id and a 32-byte secret.
// The zero Token is not a valid token. Tokens are comparable with ==.
//
// The secret is kept out of every printed form (see String); only Reveal
// returns it.
type Token struct {
	GrantID sharevat.GrantID
	secret  [SecretLen]byte
}

// New mints a token with a fresh grant id and secret read from r: first
// the 15 id bytes, then the 32 secret bytes. Callers pass
// crypto/rand.Reader; tests may pass a fixed stream.
func New(r io.Reader) (Token, error) {
	id, err := NewID(r)
	if err != nil {
		return Token{}, err
	}
	t := Token{GrantID: sharevat.GrantID(id)}
	if _, err := io.ReadFull(r, t.secret[:]); err != nil {
		return Token{}, fmt.Errorf("sturdyref: read secret: %w", err)
	}
	return t, nil
}

// NewID returns a fresh IDLen-character id from 15 bytes of r, in the
// grant id alphabet. Share ids use it too.
func NewID(r io.Reader) (string, error) {
	var b [idBytes]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return "", fmt.Errorf("sturdyref: read id: %w", err)
	}
	return idEncoding.EncodeToString(b[:]), nil
}

// ValidID reports whether id is exactly IDLen characters of the id
// alphabet (a-z, 2-7). Such a string always decodes canonically: its 24
// characters carry exactly 120 bits, with no spare bits to vary.
func ValidID(id string) bool {
	if len(id) != IDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// Parse reads a token's text strictly: exact length, prefix, a valid id,
// the '_' separator and a canonical base64url secret of 32 bytes, with
// nothing before, between or after. Any failure is ErrMalformed.
func Parse(s string) (Token, error) {
	if len(s) != TokenLen || s[:len(Prefix)] != Prefix || s[sepAt] != '_' {
		return Token{}, ErrMalformed
	}
	id, secret := s[len(Prefix):sepAt], s[sepAt+1:]
	if !ValidID(id) || !validSecretText(secret) {
		return Token{}, ErrMalformed
	}
	t := Token{GrantID: sharevat.GrantID(id)}
	n, err := secretEncoding.Decode(t.secret[:], []byte(secret))
	if err != nil || n != SecretLen {
		return Token{}, ErrMalformed
	}
	return t, nil
}

// validSecretText checks the base64url alphabet before decoding, because
// the decoder silently skips '\r' and '\n'.
func validSecretText(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_'
		if !ok {
			return false
		}
	}
	return true
}

// Reveal returns the full token text, secret included. It is the only
// way to get the secret out of a Token: call it only to hand the token to
// its holder, never to log or store it.
func (t Token) Reveal() string {
	b := make([]byte, 0, TokenLen)
	b = append(b, Prefix...)
	b = append(b, t.GrantID...)
	b = append(b, '_')
	return string(secretEncoding.AppendEncode(b, t.secret[:]))
}
