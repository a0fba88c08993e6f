// Package sturdyref is the sturdy-reference realm of sharevat (docs/design.md
// §3, §4): the token format, minting, strict parsing, the keyed verifiers
// the vault stores instead of secrets, and the attenuation rules for
// minting narrower grants. It does no I/O: randomness comes in as an
// io.Reader and time as a time.Time argument.
//
// # Token format
//
// A token is exactly TokenLen (73) bytes of ASCII:
//
//	offset  length  content
//	0       5       "svt1_"  the prefix (Prefix)
//	5       24      the grant id (IDLen)
//	29      1       "_"      the separator
//	30      43      the secret
//
// Field by field:
//
//   - The prefix is fixed and lowercase. It names the format and its
//     version and exists so that secret scanners (GitHub secret scanning,
//     gitleaks, trufflehog…) can recognise a leaked token with one
//     regular expression: svt1_[a-z2-7]{24}_[A-Za-z0-9_-]{43}.
//   - The grant id is 15 random bytes (120 bits) encoded as lowercase
//     RFC 4648 base32 without padding: the alphabet a-z, 2-7, never '_'.
//     15 bytes are exactly 24 characters of 5 bits, so every string of 24
//     characters of the alphabet is a canonical encoding. The grant id is
//     public: it appears in listings and the audit log. Share ids use the
//     same form (NewID).
//   - The separator is a single '_', which the id alphabet never holds.
//   - The secret is 32 random bytes (256 bits) encoded as base64url (RFC
//     4648 §5) without padding: 43 characters of A-Z a-z 0-9 '-' '_'. The
//     last character carries 2 unused bits, which must be zero.
//
// Parse accepts nothing else: no whitespace or newline anywhere, no
// padding, no standard-alphabet '+' or '/', no upper case in the prefix
// or id, no non-canonical last character. Every rejection is the same
// ErrMalformed, which never quotes the input.
//
// # Secrecy
//
// The secret leaves a Token only through Reveal. String, GoString,
// Format, LogValue and MarshalText all print the redacted form
// "svt1_<grantId>_…", so a token passed to fmt, log/slog or encoding/json
// by mistake shows only its public grant id. Two paths remain that no
// method can close: a misused %p on a Token value (vet reports it) and
// dumpers that read unexported fields by reflection; keep Tokens out of
// both.
//
// # Verifiers
//
// The vault never stores a secret. It stores Verifier.Sum(token):
//
//	BLAKE2b-256(key = pepper,
//	            msg = "sharevat token v1" || 0x00 || grantId || 0x00 || secret)
//
// where the pepper is a server-wide random key of 32 to 64 bytes kept
// apart from the store, grantId is the id's text and secret the 32 raw
// bytes. The leading string separates this use of the pepper from any
// other; because the secret has a fixed length at the end, the message
// is unambiguous. Binding the grant id means a secret cannot be replayed
// under another id. Verify recomputes the sum and compares it in constant
// time. Without the pepper, a stolen store does not allow offline
// guessing; with it, guessing still faces 256 bits.
//
// # Attenuation
//
// A grant can mint only narrower grants (Attenuate): the parent must hold
// the delegate right and must not be expired; the wanted scope must be
// non-empty and a subset of the parent's; the child's expiry is never
// later than the parent's. A ttl of 0 inherits the parent's expiry.
package sturdyref
