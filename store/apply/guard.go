package apply

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sharevat/sharevat"
	"github.com/sharevat/sharevat/privacy"
)

// The privacy guard (check 6, docs/design.md §5). Under the policy
// redact, an op is stored with each secret-shaped string of its body
// replaced by [REDACTED:<rule>]; under reject, an op holding one is
// rejected (ReasonSecret), with a message naming the rules, never the
// secret; under off, bodies are not scanned. An unknown policy is taken
// as redact.
//
// Digests. The log and the op-id index keep the digest of the content
// as stored — for a redacted op, of its redacted body — because every
// read checks the stored bytes against it (store/bolt), and because a
// digest of the original body, kept beside the redacted one, would let
// anyone holding the data file test guesses of the secret. A retry is
// recognised all the same (check 1): the stored digest is compared with
// the digest of the op as sent and with the digest of its redacted form,
// so a retry of a redacted op is a duplicate whatever the policy is when
// it comes back. An op id reused for content that differs only inside
// its secrets is a duplicate too: what was stored is the same.
//
// Ids. An op whose op id, key or batch id holds a secret-shaped string
// is rejected (ReasonSecret) under redact and reject alike: an id
// cannot be redacted (a retry must find its op id, a key names its
// entity, and two ids redacted alike would collide), so it is refused
// rather than stored. An op stored before with such an id is still a
// duplicate on retry: check 1 comes first.

// guarded is the privacy guard's work on one op.
type guarded struct {
	digest   [32]byte // of the op as sent
	stored   [32]byte // of the op as it would be stored
	body     []byte   // the body it would be stored with
	redacted int      // replacements in body
	scanned  bool     // alt is known
	alt      *[32]byte
}

// guard applies pol to op, which passed checks 0 and 5, in a batch
// whose id is batchID, and returns check 6's verdict.
func (g *guarded) guard(op *sharevat.Op, batchID string, pol sharevat.Privacy, lim sharevat.Limits) (sharevat.Reason, string) {
	if pol == sharevat.PrivacyOff {
		return sharevat.ReasonNone, ""
	}
	if msg := idSecret(op, batchID); msg != "" {
		return sharevat.ReasonSecret, msg
	}
	if pol == sharevat.PrivacyReject {
		ms := privacy.Scan(op.Body)
		if len(ms) == 0 {
			g.scanned = true
			return sharevat.ReasonNone, ""
		}
		red, n := privacy.Redact(op.Body)
		g.setAlt(op, red, n)
		return sharevat.ReasonSecret, secretMessage("body", ms)
	}
	red, n := privacy.Redact(op.Body)
	if g.setAlt(op, red, n); n == 0 {
		return sharevat.ReasonNone, ""
	}
	g.body, g.redacted, g.stored = red, n, *g.alt
	if len(red) > lim.MaxBodyBytes {
		return sharevat.ReasonTooLarge, fmt.Sprintf("body is %d bytes once its secrets are redacted; limit is %d", len(red), lim.MaxBodyBytes)
	}
	return sharevat.ReasonNone, ""
}

// setAlt records the digest of op with its body redacted (red, with n
// replacements), when there were any.
func (g *guarded) setAlt(op *sharevat.Op, red []byte, n int) {
	g.scanned = true
	if n == 0 {
		return
	}
	alt := Digest(&sharevat.Op{Kind: op.Kind, Key: op.Key, Body: red, Delete: op.Delete})
	g.alt = &alt
}

// same reports whether the op stored as ix is op: the digest of op as
// sent, or of its redacted form (scanned now if Prepare did not, under
// the policy off: rare, only on a mismatch).
func (g *guarded) same(op *sharevat.Op, ix *sharevat.IndexedOp) bool {
	if ix.Matches(g.digest) || ix.Matches(g.stored) {
		return true
	}
	if !g.scanned {
		red, n := privacy.Redact(op.Body)
		g.setAlt(op, red, n)
	}
	return g.alt != nil && ix.Matches(*g.alt)
}

// idSecret returns why op is rejected when its op id, key or batch id
// holds a secret-shaped string, else "". Ids are never redacted: a
// retry must find its op id, a state kind's key names its entity, and
// two ids redacted alike would collide.
func idSecret(op *sharevat.Op, batchID string) string {
	for _, id := range [...]struct{ what, text string }{{"op id", op.OpID}, {"key", op.Key}, {"batch id", batchID}} {
		if ms := privacy.ScanText([]byte(id.text)); len(ms) > 0 {
			return secretMessage(id.what, ms) + "; ids are never redacted"
		}
	}
	return ""
}

// secretMessage says which rules found secrets in what, never what
// they found.
func secretMessage(what string, ms []privacy.Match) string {
	var rules []string
	for _, m := range ms {
		rules = append(rules, m.Rule)
	}
	slices.Sort(rules)
	rules = slices.Compact(rules)
	found := "a secret-shaped string"
	if len(ms) > 1 {
		found = fmt.Sprintf("%d secret-shaped strings", len(ms))
	}
	return fmt.Sprintf("%s holds %s (%s); the share's privacy policy rejects such ops", what, found, strings.Join(rules, ", "))
}
