package sturdyref

import (
	"fmt"
	"log/slog"
	"regexp"
)

// redacted stands in for the secret in every printed form.
const redacted = "…"

// String returns the redacted form "svt1_<grantId>_…", so %v, %s and
// logs never show the secret. Use Reveal for the full text.
func (t Token) String() string {
	return Prefix + string(t.GrantID) + "_" + redacted
}

// GoString returns a redacted Go-syntax-like form for %#v.
func (t Token) GoString() string {
	return fmt.Sprintf("sturdyref.Token{GrantID:%q, secret:%q}", t.GrantID, redacted)
}

// Format implements fmt.Formatter so that no verb prints the secret:
// without it, verbs such as %d or %b would print the struct's fields.
// %#v prints GoString; every other verb formats String. (fmt reports a
// misused %p on a Token value without calling any method, and dumpers that
// walk unexported fields by reflection see everything: vet flags the
// first, and the second has no place outside tests.)
func (t Token) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, t.GoString())
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), t.String())
}

// LogValue implements slog.LogValuer with the redacted form.
func (t Token) LogValue() slog.Value { return slog.StringValue(t.String()) }

// MarshalText implements encoding.TextMarshaler with the redacted form, so
// json.Marshal and friends never leak the secret. It is deliberately
// one-way: there is no UnmarshalText, and the output does not Parse. To
// send a token on purpose, send Reveal() as a string.
func (t Token) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// textPattern matches a token inside free text; group 1 is its public
// part, "svt1_<grantId>_".
var textPattern = regexp.MustCompile(`(` + Prefix + `[a-z2-7]{24}_)[A-Za-z0-9_-]{43}`)

// RedactText replaces the secret of every token-shaped string in s with
// "…", keeping the public part: for messages that quote what a caller
// sent (a caller may pass a token where an id belongs).
func RedactText(s string) string { return textPattern.ReplaceAllString(s, "${1}"+redacted) }
