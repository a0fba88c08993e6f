package privacy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/privacy"
	"github.com/sharevat/sharevat/privacy/privacytest"
)

// TestPlantedSecretsAreRedacted: every planted secret is found by its
// rule (the line's, or the one its template names), and the redacted
// body is the template with each secret replaced by [REDACTED:<rule>],
// byte for byte — so nothing around a secret is
// touched and the body stays valid JSON.
func TestPlantedSecretsAreRedacted(t *testing.T) {
	for _, p := range privacytest.MustPlanted(t) {
		require.True(t, json.Valid(p.Body), "%s: the planted body is not JSON", p.Name)
		got, n := privacy.Redact(p.Body)
		assert.Equal(t, string(p.Want), string(got), "%s: redacted body", p.Name)
		assert.Equal(t, strings.Count(string(p.Want), "[REDACTED:"), n, "%s: redactions", p.Name)
		assert.True(t, json.Valid(got), "%s: the redacted body is not JSON", p.Name)
		for i, m := range privacy.Scan(p.Body) {
			want := p.Rule
			if i < len(p.Rules) {
				want = p.Rules[i]
			}
			assert.Equal(t, want, m.Rule, "%s: the rule that found secret %d", p.Name, i)
		}
		for _, needle := range p.Needles {
			assert.NotContains(t, string(got), needle, "%s: a secret survives redaction", p.Name)
		}
	}
}

// TestLookAlikesPassUntouched: no look-alike (prefixes in prose,
// placeholders, hashes, UUIDs, base64 blobs, public keys, ordinary code,
// shell sessions, configuration) is matched.
func TestLookAlikesPassUntouched(t *testing.T) {
	for _, l := range privacytest.MustLookAlikes(t) {
		require.True(t, json.Valid(l.Body), "%s: the look-alike is not JSON", l.Name)
		ms := privacy.Scan(l.Body)
		for _, m := range ms {
			t.Errorf("%s: rule %s matched %q", l.Name, m.Rule, l.Body[m.Start:m.End])
		}
		got, n := privacy.Redact(l.Body)
		assert.Equal(t, 0, n, l.Name)
		assert.Equal(t, string(l.Body), string(got), "%s: changed", l.Name)
	}
}

// TestEveryRuleIsPlanted: the corpus plants at least one secret of
// every rule, and names no rule that does not exist.
func TestEveryRuleIsPlanted(t *testing.T) {
	planted := make(map[string]bool)
	for _, p := range privacytest.MustPlanted(t) {
		planted[p.Rule] = true
	}
	ids := make(map[string]bool)
	for _, r := range privacy.Rules() {
		assert.False(t, ids[r.ID], "rule id %s twice", r.ID)
		ids[r.ID] = true
		assert.True(t, planted[r.ID], "no planted secret for rule %s", r.ID)
		assert.Regexp(t, `^[a-z0-9]+(-[a-z0-9]+)*$`, r.ID)
		assert.NotEmpty(t, r.Description, r.ID)
	}
	for id := range planted {
		assert.True(t, ids[id], "planted.txt names unknown rule %s", id)
	}
}

// TestRedactIsIdempotent: redacting a redacted body changes nothing, so
// a vat may scan what it already redacted (a fork, an import) safely.
func TestRedactIsIdempotent(t *testing.T) {
	for _, p := range privacytest.MustPlanted(t) {
		once, _ := privacy.Redact(p.Body)
		twice, n := privacy.Redact(once)
		assert.Equal(t, 0, n, p.Name)
		assert.Equal(t, string(once), string(twice), p.Name)
	}
}
