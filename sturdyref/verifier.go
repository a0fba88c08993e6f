package sturdyref

import (
	"crypto/subtle"
	"fmt"
	"io"

	"golang.org/x/crypto/blake2b"

	"github.com/sharevat/sharevat"
)

// MinPepperLen is the shortest pepper NewVerifier accepts, in bytes.
const MinPepperLen = 32

// maxPepperLen is BLAKE2b's key size limit.
const maxPepperLen = blake2b.Size

// verifierDomain separates token verifiers from any other use of the
// pepper. The version follows the token format's.
const verifierDomain = "sharevat token v1\x00"

// NewPepper returns MinPepperLen fresh random bytes from r (callers pass
// crypto/rand.Reader), for a new server's pepper file.
func NewPepper(r io.Reader) ([]byte, error) {
	p := make([]byte, MinPepperLen)
	if _, err := io.ReadFull(r, p); err != nil {
		return nil, fmt.Errorf("sturdyref: read pepper: %w", err)
	}
	return p, nil
}

// Verifier computes and checks the keyed verifiers the vault stores in
// place of secrets. It is safe for concurrent use.
type Verifier struct {
	key []byte
}

// NewVerifier returns a Verifier keyed with a copy of pepper.
// Errors: EInvalid if pepper is shorter than MinPepperLen or longer than
// 64 bytes (the BLAKE2b key limit).
func NewVerifier(pepper []byte) (*Verifier, error) {
	if len(pepper) < MinPepperLen || len(pepper) > maxPepperLen {
		return nil, sharevat.Errorf(sharevat.EInvalid,
			"pepper is %d bytes; want %d to %d", len(pepper), MinPepperLen, maxPepperLen)
	}
	return &Verifier{key: append([]byte(nil), pepper...)}, nil
}

// Sum returns the 32-byte verifier of t:
// BLAKE2b-256 keyed with the pepper over
// "sharevat token v1\x00" || grant id || 0x00 || secret.
func (v *Verifier) Sum(t Token) []byte {
	h, err := blake2b.New256(v.key)
	if err != nil {
		panic("sturdyref: " + err.Error()) // unreachable: NewVerifier checked the key
	}
	h.Write([]byte(verifierDomain))
	h.Write([]byte(t.GrantID))
	h.Write([]byte{0})
	h.Write(t.secret[:])
	return h.Sum(nil)
}

// Verify reports whether stored is t's verifier, in constant time. A
// stored value of the wrong length is false.
func (v *Verifier) Verify(t Token, stored []byte) bool {
	return subtle.ConstantTimeCompare(v.Sum(t), stored) == 1
}
