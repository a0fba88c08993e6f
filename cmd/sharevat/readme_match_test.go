package main_test

// The output matching rules of TestReadmeWalkthrough (readme_test.go).

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// shown is what the README shows as a command's output.
func shown(want []string) string {
	if len(want) == 0 {
		return "(nothing)\n"
	}
	return asComments(strings.Join(want, "\n") + "\n")
}

// lines splits output into its lines; "" has none.
func lines(out string) []string {
	if out == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(out, "\n"), "\n")
}

// asComments shows output as the README would: each line after "# ".
func asComments(out string) string {
	var b strings.Builder
	for _, l := range lines(out) {
		b.WriteString(strings.TrimRight("# "+l, " ") + "\n")
	}
	return b.String()
}

// matchLines reports whether got matches want line by line, a want line
// "…" matching any number of lines.
func matchLines(want, got []string) bool {
	if len(want) == 0 {
		return len(got) == 0
	}
	if want[0] == "…" {
		for k := 0; k <= len(got); k++ {
			if matchLines(want[1:], got[k:]) {
				return true
			}
		}
		return false
	}
	return len(got) > 0 && lineMatches(want[0], got[0]) && matchLines(want[1:], got[1:])
}

// lineMatches reports whether line matches the README's pattern: "…"
// matches any text, and a run of two or more spaces after the first
// character that is not a space matches any run of spaces.
func lineMatches(pattern, line string) bool {
	indent := len(pattern) - len(strings.TrimLeft(pattern, " "))
	var re strings.Builder
	re.WriteString("^" + regexp.QuoteMeta(pattern[:indent]))
	for i, part := range strings.Split(pattern[indent:], "…") {
		if i > 0 {
			re.WriteString(".*")
		}
		for j, lit := range spaceRuns.Split(part, -1) {
			if j > 0 {
				re.WriteString(" +")
			}
			re.WriteString(regexp.QuoteMeta(lit))
		}
	}
	return regexp.MustCompile(re.String() + "$").MatchString(line)
}

var spaceRuns = regexp.MustCompile(`  +`)

// linkToken is the token in a share page link, the one token the
// README's commands print (grant --link): the README shows it elided.
var linkToken = regexp.MustCompile(`/s/#svt1_[A-Za-z0-9_-]+`)

// TestReadmeMatchRules checks the matching rules TestReadmeWalkthrough
// documents, so that a wrong line in the README cannot pass.
func TestReadmeMatchRules(t *testing.T) {
	for _, c := range []struct {
		want, got []string
		match     bool
	}{
		{[]string{"head is 4"}, []string{"head is 4"}, true},
		{[]string{"head is 4"}, []string{"head is 5"}, false},
		{[]string{"head is 4"}, []string{"head is 4", "more"}, false},
		{[]string{"head is 4"}, nil, false},
		{nil, []string{"anything"}, false},
		{[]string{"granted … (scope read)"}, []string{"granted k3x (scope read)"}, true},
		{[]string{"granted … (scope read)"}, []string{"granted k3x (scope read, append)"}, false},
		{[]string{"a", "…"}, []string{"a"}, true},
		{[]string{"a", "…", "z"}, []string{"a", "b", "c", "z"}, true},
		{[]string{"a", "…", "z"}, []string{"a", "b", "c"}, false},
		{[]string{"…      read  live"}, []string{"k3x  read    live"}, true},
		{[]string{"  …  read"}, []string{"k3x  read"}, false},
		{[]string{"  …  read"}, []string{"  k3x  read"}, true},
		{[]string{"a  b"}, []string{"ab"}, false},
		{[]string{"a.b"}, []string{"axb"}, false},
	} {
		assert.Equal(t, c.match, matchLines(c.want, c.got), "want %q, got %q", c.want, c.got)
	}

	var s step
	for _, l := range []string{"# out", "#", "#   m2 rejected   — exit code 4", "# — exit code 3"} {
		require.NoError(t, addWant(&s, l, 1))
	}
	assert.Equal(t, []string{"out", "", "  m2 rejected"}, s.want)
	assert.Equal(t, 3, s.code)
	require.Error(t, addWant(&s, "#no space", 1))
}
