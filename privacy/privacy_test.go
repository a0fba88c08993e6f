package privacy_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sharevat/sharevat/privacy"
	"github.com/sharevat/sharevat/privacy/privacytest"
)

// fakeGitHub is a classic GitHub token of the right shape, plainly fake.
// It is assembled, so the source holds no token-shaped string.
var fakeGitHub = "ghp" + "_FAKEfake0123456789FAKEfake0123456789"

// TestEscapedSecretsAreFound: a secret written with JSON escapes (\/ in
// base64, \u for any character, the keyword itself escaped) is found in
// the decoded text, and the replacement covers whole escape sequences,
// so the body stays valid JSON and no part of the secret is left.
func TestEscapedSecretsAreFound(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"slash", `{"t":"aws_secret_access_key=FAKEabcdefghij\/klmnopqrstuvwxyz012345\/67"}`,
			`{"t":"aws_secret_access_key=[REDACTED:aws-secret-access-key]"}`},
		{"keyword", `{"t":"ghp\u005f` + fakeGitHub[4:] + `"}`, `{"t":"[REDACTED:github-pat]"}`},
		{"last char", `{"t":"` + fakeGitHub[:39] + `\u0039 next"}`, `{"t":"[REDACTED:github-pat] next"}`},
		{"around", `{"t":"caf\u00e9 \"` + fakeGitHub + `\" \ud83d\ude00"}`, `{"t":"caf\u00e9 \"[REDACTED:github-pat]\" \ud83d\ude00"}`},
		{"key", `{"` + fakeGitHub + `":1}`, `{"[REDACTED:github-pat]":1}`},
	} {
		got, n := privacy.Redact([]byte(tc.body))
		assert.Equal(t, tc.want, string(got), tc.name)
		assert.Equal(t, 1, n, tc.name)
		assert.True(t, json.Valid(got), tc.name)
	}
}

// TestMatchBounds: Scan's offsets are the secret's raw bytes in the
// body, in order.
func TestMatchBounds(t *testing.T) {
	body := `{"a":"x ` + fakeGitHub + `","b":["svt1_aaaaaaaaaaaaaaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]}`
	ms := privacy.Scan([]byte(body))
	require.Len(t, ms, 2)
	assert.Equal(t, privacy.Match{Rule: "github-pat", Start: 8, End: 8 + len(fakeGitHub)}, ms[0])
	assert.Equal(t, "sharevat-token", ms[1].Rule)
	assert.Equal(t, "svt1_aaaaaaaaaaaaaaaaaaaaaaaa_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", body[ms[1].Start:ms[1].End])
}

// TestMemberContext: an object member's key gives its value the name a
// rule needs, and a name inside the value's own text works too; a key
// without such a name does not.
func TestMemberContext(t *testing.T) {
	value := "FAKEq7Zp2Lw9Xc4Vb8Nm1Kj6Hg3Fd5Sa0"
	for _, tc := range []struct {
		body string
		n    int
	}{
		{`{"OPENAI_API_KEY":"` + value + `"}`, 1},
		{`{"env":{"client_secret":"` + value + `"}}`, 1},
		{`{"text":"CLIENT_SECRET=` + value + `"}`, 1},
		{`{"description":"` + value + `"}`, 0},
		{`{"api_key":7,"x":"` + value + `"}`, 0},
	} {
		_, n := privacy.Redact([]byte(tc.body))
		assert.Equal(t, tc.n, n, tc.body)
	}
}

// TestText: the text functions scan plain text as it is.
func TestText(t *testing.T) {
	text := "token\n" + fakeGitHub + "\nend"
	got, n := privacy.RedactText([]byte(text))
	assert.Equal(t, 1, n)
	assert.Equal(t, "token\n[REDACTED:github-pat]\nend", string(got))
	assert.Empty(t, privacy.ScanText([]byte("nothing to see")))
}

// TestNoMatchReturnsBody: with nothing found, Redact returns its input
// without a copy.
func TestNoMatchReturnsBody(t *testing.T) {
	body := []byte(`{"text":"hello"}`)
	got, n := privacy.Redact(body)
	assert.Equal(t, 0, n)
	assert.Same(t, &body[0], &got[0])
}

// FuzzRedact: for any valid JSON body, the redacted body is valid JSON,
// the matches are ordered, disjoint and within the body, and redacting
// again changes nothing.
func FuzzRedact(f *testing.F) {
	for _, p := range privacytest.MustPlanted(f) {
		f.Add(p.Body)
	}
	for _, l := range privacytest.MustLookAlikes(f) {
		if len(l.Body) < 4096 {
			f.Add(l.Body)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms := privacy.Scan(body)
		prev := 0
		for _, m := range ms {
			if m.Start < prev || m.End <= m.Start || m.End > len(body) {
				t.Fatalf("bad match %+v after %d in %d bytes", m, prev, len(body))
			}
			prev = m.End
		}
		got, n := privacy.Redact(body)
		if n != len(ms) {
			t.Fatalf("Redact replaced %d, Scan found %d", n, len(ms))
		}
		if !json.Valid(body) {
			return
		}
		if !json.Valid(got) {
			t.Fatalf("redacted body is not JSON: %q", got)
		}
		if again, n := privacy.Redact(got); n != 0 || !bytes.Equal(again, got) {
			t.Fatalf("redacting again changed %q into %q", got, again)
		}
	})
}

// TestWorstCases: bodies built to make the scanner work hardest — every
// byte a keyword, key headers without end, endless backslashes — are
// scanned in one linear pass (the benchmarks measure them).
func TestWorstCases(t *testing.T) {
	for name, body := range worstCases(1 << 16) {
		require.True(t, json.Valid(body), name)
		got, _ := privacy.Redact(body)
		assert.True(t, json.Valid(got), name)
	}
}

func worstCases(size int) map[string][]byte {
	fill := func(unit string) []byte {
		s := strings.Repeat(unit, size/len(unit)+1)[:size/len(unit)*len(unit)]
		b, _ := json.Marshal(map[string]string{"text": s})
		return b
	}
	return map[string][]byte{
		"keywords":    fill("password=sk-AKIAxoxb-eyJ://basic "),
		"begin":       fill("-----BEGIN PRIVATE KEY-----\n"),
		"begin-body":  fill("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7\n"),
		"backslashes": fill(`\\\\\\\\\\\\\\\\\\\\\\\\`),
		"secrets":     fill(fakeGitHub + " "),
		"assign":      fill("token: FAKEq7Zp2Lw9Xc4Vb8Nm1Kj6 "),
	}
}
