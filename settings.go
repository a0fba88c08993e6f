package sharevat

import (
	"strings"
	"time"
)

// Privacy is a share's policy for secret-shaped strings (API keys,
// tokens, private keys…) in op bodies, applied when an op is appended.
// Like Reason, its values are wire-stable.
type Privacy uint8

// The privacy policies. PrivacyRedact, the zero value, is the default.
const (
	// PrivacyRedact replaces each match by [REDACTED:<rule>] before
	// anything is written; the ack counts the replacements.
	PrivacyRedact Privacy = iota
	// PrivacyReject rejects an op with a match (ReasonSecret).
	PrivacyReject
	// PrivacyOff scans nothing.
	PrivacyOff
)

var privacyNames = [...]string{"redact", "reject", "off"}

// String returns "redact", "reject" or "off".
func (p Privacy) String() string {
	if int(p) < len(privacyNames) {
		return privacyNames[p]
	}
	return "unknown"
}

// ParsePrivacy parses "redact", "reject" or "off".
func ParsePrivacy(text string) (Privacy, error) {
	for i, n := range privacyNames {
		if n == text {
			return Privacy(i), nil
		}
	}
	return 0, Errorf(EInvalid, "unknown privacy policy %q (want %s)", text, strings.Join(privacyNames[:], ", "))
}

// Settings are a share's settings: its privacy policy and its retention.
// With RetainOps or RetainFor set, the vat compacts older ops in the
// background; with both set, an op goes once both allow it.
type Settings struct {
	Privacy   Privacy
	RetainOps uint64        // keep at least the last N ops readable; 0: no limit by count
	RetainFor time.Duration // keep at least the ops of the last D; 0: no limit by age
}
